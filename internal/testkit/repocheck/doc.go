// Package repocheck holds tests, and nothing else, that keep what the
// repository says about itself true. They need no Docker engine, no GitHub
// and no installed linter.
//
// docs_test.go: the project's documentation is self-contained. README
// files, docs/*.md and the Go doc comments of cmd/ and internal/ must not
// point to files outside the repository. Every relative Markdown link and
// its #anchor must resolve inside it. The user-facing contract is
// docs/README.md and the pages it links.
//
// release_test.go: the release files match the repository, as
// docs/release.md and docs/ci.md describe them:
//
//   - the Dockerfile: its stages, the paths it copies and that
//     .dockerignore lets through, the main packages it builds, the version
//     flag, a numeric non-root user, and a Go version equal to go.mod's
//     toolchain line.
//   - docs/examples/github-actions.yml: valid YAML, a pull-request workflow
//     whose steps judge against the baseline with JUnit, write the diff to
//     the job summary and comment it, with every action pinned. docs/ci.md
//     shows the same file.
//   - every "go install github.com/ragbaseline/ragbaseline/…@" line in the
//     README files and docs/ names main packages that exist.
//
// scripts/lint_release.sh, run by make lint-release, adds hadolint and
// actionlint.
package repocheck
