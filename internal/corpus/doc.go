// Package corpus reads the seed documents of a knowledge base (docs/corpus.md):
// markdown files with a frontmatter, validated all together before
// anything is written, and cuts their bodies into heading-aware chunks.
// rag-seed loads a directory with LoadDir and chunks each document with
// Chunk. Nothing here touches a store.
//
// # Seed documents
//
// A seed document is a UTF-8 markdown file that starts with a frontmatter
// between two "---" lines:
//
//	---
//	source: mysql-connection-pool            # required
//	title: MySQL 连接池耗尽排查               # optional
//	breadcrumb: Database > MySQL > Connection Pool
//	category: database
//	kb_scope: rag-eval
//	keywords: [连接池, too many connections]  # L0 hints only
//	aliases:
//	  - pool exhausted
//	---
//	# MySQL 连接池耗尽排查
//	…
//
// The keys:
//
//	source      required  [a-z0-9][a-z0-9._-]*, at most 128 bytes, unique in the directory
//	title       optional  default: the first level-1 heading of the body, else source
//	breadcrumb  required  at least one segment when split on '>', '/' or '›'
//	category    required  drives the L0 category filter
//	kb_scope    required  must equal the kb scope being loaded (rag-seed: --kb-scope, or the
//	                      kbScope of the eval set's golden file)
//	keywords    optional  list; L0 hints only, never chunked
//	aliases     optional  list; L0 hints only, never chunked
//	doc_id      optional  default "<kb_scope>/<source>"; [A-Za-z0-9][A-Za-z0-9._:/#-]*,
//	                      at most 256 bytes, unique in the directory, also ignoring letter case
//
// Values are trimmed. An empty value, a control character, tab and newline
// included, or a value longer than 1024 bytes is a problem. List items
// must be distinct after textnorm.Normalize, since each would be a second
// L0 vote.
//
// The frontmatter is a strict subset of YAML, so any YAML tool reads it
// the same way, and anything outside the subset is a problem rather than a
// guess:
//
//   - one "key: value" per line, the key at the start of the line and the
//     colon right after it. Unknown and duplicate keys are problems;
//   - a value is plain, "double-quoted" with YAML escapes (\" \\ \n \t
//     \uXXXX …) or 'single-quoted' with a quote written twice, each on one
//     line. A plain value ends at a " #" comment. It may not start with a
//     YAML indicator such as '{', '&', '|' or "- ", may not contain ": ",
//     and may not be null or ~;
//   - a list is a flow list on one line, [a, "b, c", 'd'], without empty
//     items, or a block list: "key:" alone, then one "- item" line per
//     item, all indented alike with spaces;
//   - blank lines and "# comment" lines are ignored.
//
// Keywords, aliases, the title when written only in the frontmatter, the
// category and the breadcrumb are metadata. The body, Document.Body, is the
// file after the closing "---" line and holds nothing of the frontmatter.
// A chunk's Text comes from the body only. Indexers must embed and
// BM25-index Chunk.Text alone, not Breadcrumb or Title, or a word written
// only in the frontmatter becomes findable. The fallback decoy case of the
// eval set depends on it.
//
// A UTF-8 byte order mark at the start is ignored, and CRLF and CR line
// endings are read as LF. Body has LF line endings, and line numbers are
// the same as an editor shows. Document.ContentHash is the hex SHA-256 of
// the file's bytes as read, BOM, CRLF and frontmatter included, so editing
// a keyword re-indexes the document.
//
// # Problems
//
// Every problem is reported as FILE:LINE: MESSAGE, with the line of the
// offending key or list item. Problems of the whole file are on line 1: a
// missing frontmatter ("missing frontmatter"), an unclosed one, a missing
// required key, a body that is only white space ("empty body") or only
// headings, a file larger than 16 MiB. Invalid UTF-8 is reported at the
// line of the first bad byte. A duplicate source or doc_id is reported on the later file
// in name order, naming the earlier one:
//
//	seed-docs/b.md:2: duplicate source "mysql-pool" (also in seed-docs/a.md:2)
//	seed-docs/c.md:1: missing required key "category"
//	seed-docs/c.md:5: kb_scope "prod" does not match the kb scope being loaded ("rag-eval")
//
// A kb_scope that is not the one being loaded is a problem of its document
// like any other, with a *ScopeError as its Err, so rag-seed can report all
// such documents in one line.
//
// LoadDir reads every *.md file of a directory and checks them all. It
// reads no subdirectory and no name starting with '.'. It returns either
// every document or a diag.List error listing every problem of every file,
// sorted by file, then line, so that rag-seed can print them all, exit 2
// and write nothing.
//
// # Chunks
//
// Chunk cuts a body into sections at ATX headings: "#" to "######"
// followed by a space, indented at most three spaces, outside fenced code
// blocks opened by ``` or ~~~. Setext headings are not recognised. A chunk
// never spans two sections.
//
//   - The heading line is the first line of its section's first chunk, so
//     heading words are searchable. A section without text, a heading
//     followed directly by a sub-heading, gives no chunk. Its heading
//     still stays in the breadcrumb of the sections below it. Text before the
//     first heading is a section of its own.
//   - A chunk's Breadcrumb is the document breadcrumb, then " > " and the
//     path of headings down to its section, each as written without the #s
//     and an optional closing sequence of #s. A level-1 heading equal to
//     the title after textnorm.Normalize is left out of the path, so the
//     usual "# Title" line does not repeat it. With the breadcrumb
//     "Database > MySQL > Connection Pool", the body
//     "# MySQL 连接池耗尽排查\n## 排查步骤\n…" gives
//     "Database > MySQL > Connection Pool > 排查步骤". Headings with no text
//     end deeper sections but add nothing to the path.
//   - Sizes count Unicode characters, that is runes. A section of at most
//     MaxChars characters, 800 by default, is one chunk, trimmed of
//     surrounding white space. A longer section is cut into pieces. Each
//     piece ends at the last boundary that keeps it within the limit and at
//     least half full, trying the boundaries in turn: paragraphs, lines,
//     sentences and white space. Paragraphs are blank lines and the start
//     and end of a fenced code block, whose own blank lines do not count. A sentence ends after 。！？, or after . ! ?
//     followed by white space, closing quotes and brackets included.
//     Failing those, the piece ends at the last boundary of any kind, and
//     failing that hard at the limit, though never between a letter and
//     its combining marks.
//   - Every piece after the first of a section starts with up to Overlap
//     characters, 100 by default, from the end of the previous piece. The
//     overlap starts at its first paragraph, line, sentence or word
//     boundary, and the piece with its overlap is at most MaxChars
//     characters. Overlap is capped at MaxChars/2. Chunks of different
//     sections never overlap.
//   - Chunks are numbered 0..n-1 in document order (ChunkIndex). Text is
//     the chunk's full text, the fixture excerpt. DocID, Source, Title,
//     Category and KBScope are copied from the document. The same document
//     and options always give the same chunks.
//   - EvidenceKey names a chunk by its section, not its position, so it
//     survives edits of other sections. It is kb.EvidenceKey(DocID, label,
//     occurrence, piece). label is kb.SectionLabel of the section's
//     heading path, the breadcrumb after the document's. occurrence is the
//     rank of the section among the sections of the document with the same
//     label. Every heading counts, with text or not, and text before the
//     first heading counts when it is not blank. piece is the rank of the
//     chunk among its section's pieces. "rag-eval/mysql-connection-pool#" is the
//     text under the title, "…#排查步骤 > 1. 查看当前连接数" a subsection,
//     "…#处理~2" the second piece of a long section, "…#FAQ@2" the second
//     section whose path is FAQ.
//
// The package imports the standard library, kb, textnorm and diag only.
package corpus
