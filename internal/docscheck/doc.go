// Package docscheck holds a test, and nothing else, that keeps the project's
// documentation self-contained: README files, docs/*.md and the Go doc
// comments of cmd/ and internal/ must not point to files outside the
// repository, and every relative Markdown link (and its #anchor) must resolve
// inside it. The user-facing contract is docs/README.md and the pages it
// links.
package docscheck
