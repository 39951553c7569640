#!/usr/bin/env bash
# make dist-check: check what make dist wrote in dist/ (docs/release.md).
#
#   * SHA256SUMS verifies, and lists one archive per platform of $PLATFORMS.
#   * Each archive holds exactly ragbaseline_<version>_<os>_<arch>/ with
#     rag-eval, rag-seed, rag-snapshot and README.md. It also holds the
#     repository's LICENSE and NOTICE files, when it has them.
#   * Each binary was built for its platform, with CGO off and -trimpath.
#     go version -m says so, though it does not show -ldflags under -trimpath.
#   * The host platform's binaries run: `<tool> --version` prints
#     "<tool> version <version>". The others are built by the same loop.
#   * Unless DIST_CHECK_REBUILD=0, make dist run again into another
#     directory gives the same SHA256SUMS: the archives are reproducible.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/dist_env.sh

fail() { echo "dist_check.sh: $*" >&2; exit 1; }

[ -f "$DIST/SHA256SUMS" ] || fail "no $DIST/SHA256SUMS: run make dist first"
if command -v sha256sum >/dev/null 2>&1; then
	(cd "$DIST" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not verify"
else
	(cd "$DIST" && shasum -a 256 --quiet -c SHA256SUMS) || fail "SHA256SUMS does not verify"
fi

host="$("$GO" env GOOS)/$("$GO" env GOARCH)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count=0
ran=0
for platform in $PLATFORMS; do
	goos=${platform%/*} goarch=${platform#*/}
	name=ragbaseline_${VERSION}_${goos}_${goarch}
	archive=$name.tar.gz
	grep -q "  $archive\$" "$DIST/SHA256SUMS" || fail "SHA256SUMS lists no $archive"
	count=$((count + 1))

	want=$( (echo "$name/"; for f in $TOOLS "${DOCS[@]}"; do echo "$name/$f"; done) | sort)
	got=$(tar -tzf "$DIST/$archive" | sort)
	[ "$got" = "$want" ] || fail "$archive holds
$got
want
$want"

	mkdir -p "$tmp/$platform"
	tar -xzf "$DIST/$archive" -C "$tmp/$platform"
	for tool in $TOOLS; do
		bin=$tmp/$platform/$name/$tool
		[ -x "$bin" ] || fail "$archive: $tool is not executable"
		info=$("$GO" version -m "$bin") || fail "$archive: $tool: go version -m failed"
		for setting in "GOOS=$goos" "GOARCH=$goarch" "CGO_ENABLED=0" "-trimpath=true"; do
			printf '%s\n' "$info" | grep -q "^[[:space:]]*build[[:space:]]*$setting\$" ||
				fail "$archive: $tool was not built with $setting:
$info"
		done
		if [ "$platform" = "$host" ]; then
			out=$("$bin" --version) || fail "$archive: $tool --version failed"
			[ "$out" = "$tool version $VERSION" ] ||
				fail "$archive: $tool --version printed \"$out\", want \"$tool version $VERSION\""
			ran=$((ran + 1))
		fi
	done
done
n=$(wc -l <"$DIST/SHA256SUMS")
[ "$n" -eq "$count" ] || fail "SHA256SUMS lists $n archives, want $count (one per platform of: $PLATFORMS)"
if [ "$ran" -eq 0 ]; then
	echo "dist_check.sh: warning: no archive for the host platform $host; no binary was run" >&2
fi

if [ "${DIST_CHECK_REBUILD:-1}" != 0 ]; then
	again=$tmp/rebuild
	DIST=$again GO=$GO VERSION=$VERSION PLATFORMS=$PLATFORMS scripts/dist.sh >/dev/null 2>"$tmp/rebuild.log" ||
		{ cat "$tmp/rebuild.log" >&2; fail "make dist failed the second time"; }
	if ! cmp -s "$DIST/SHA256SUMS" "$again/SHA256SUMS"; then
		diff "$DIST/SHA256SUMS" "$again/SHA256SUMS" >&2 || true
		fail "make dist is not reproducible: a second run gave other archives"
	fi
	echo "dist_check.sh: a second make dist gave the same archives" >&2
fi
echo "dist_check.sh: ok: $count archives of $VERSION; ran the $host binaries' --version" >&2
