#!/usr/bin/env bash
# make dist: the release archives (docs/release.md).
#
# Builds rag-eval, rag-seed and rag-snapshot for every platform in
# $PLATFORMS, by default linux and darwin on amd64 and arm64. The builds
# have CGO off, -trimpath, and the version `git describe --tags --always
# --dirty` prints as main.version, as make build does. It stages each
# platform's binaries with the README, and with the LICENSE and NOTICE
# files when the repository has them. Then it packs them into
#
#   dist/ragbaseline_<version>_<os>_<arch>.tar.gz
#   dist/SHA256SUMS
#
# Reproducible: no build path, no timestamp and no owner of this machine
# gets in, and the archive entries carry the commit's time. So the same
# commit built by the same Go release gives the same bytes. go.mod's
# toolchain line names that release. scripts/dist_check.sh checks the
# result.
#
# Environment, with defaults: GO (go), VERSION (from git), PLATFORMS,
# DIST (dist), SOURCE_DATE_EPOCH (the commit's time).
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/dist_env.sh
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

case $VERSION in
*[!A-Za-z0-9._+-]* | "") echo "dist.sh: version \"$VERSION\" is not usable in a file name" >&2; exit 2 ;;
esac
case $VERSION in
*-dirty) echo "dist.sh: warning: the work tree has uncommitted changes ($VERSION): not a release" >&2 ;;
esac

stage=$DIST/.stage
rm -rf "$stage"
rm -f "$DIST"/ragbaseline_*.tar.gz "$DIST/SHA256SUMS"
mkdir -p "$stage"

dirs=()
for platform in $PLATFORMS; do
	goos=${platform%/*} goarch=${platform#*/}
	name=ragbaseline_${VERSION}_${goos}_${goarch}
	echo "dist: $name" >&2
	mkdir -p "$stage/$name"
	for tool in $TOOLS; do
		CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch "$GO" build -trimpath \
			-ldflags "-s -w -X main.version=$VERSION" \
			-o "$stage/$name/$tool" "./cmd/$tool"
	done
	cp "${DOCS[@]}" "$stage/$name/"
	dirs+=("$stage/$name")
done

"$GO" run ./tools/distpack -out "$DIST" -mtime "$SOURCE_DATE_EPOCH" "${dirs[@]}"
rm -rf "$stage"
echo "dist: ${#dirs[@]} archives of version $VERSION and $DIST/SHA256SUMS:" >&2
cat "$DIST/SHA256SUMS"
