# Sourced by scripts/dist.sh and scripts/dist_check.sh: what a release is
# made of, so that the build and its check agree.
#
# Environment, with defaults: GO (go), DIST (dist), PLATFORMS, VERSION (from git).
GO=${GO:-go}
DIST=${DIST:-dist}
PLATFORMS=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
TOOLS="rag-eval rag-seed rag-snapshot"
# The files packed beside the binaries: the README, and the licence and
# notice files when the repository has them.
DOCS=(README.md)
for f in LICENSE LICENSE.* LICENCE NOTICE NOTICE.* COPYING; do
	if [ -f "$f" ]; then DOCS+=("$f"); fi
done
