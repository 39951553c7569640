// Package querylog reads the query logs rag-eval draft turns into draft
// golden cases (docs/golden-sets.md): plain text, JSONL, CSV and OTLP JSON
// trace exports of OpenInference retriever spans. Read returns the log's
// queries in file order, each with its count, tags, scenario and line, and
// for a span the documents it retrieved. It neither normalises nor
// de-duplicates: package draft does.
//
// Every reader is strict and says where: a malformed line, a missing or
// blank query, a count that is no positive integer, a tag list that is
// not one. Each problem is a diag.Error naming the file and the line, and
// Read returns them all at once (up to MaxProblems), so a log is fixed in
// one pass. The readers never panic, and their fuzz tests check it.
//
// The formats:
//
//   - Text: one query per line. Blank lines are skipped.
//   - JSONL: one JSON object per line with "query" (required), "count",
//     "tags" and "scenario". Other members are ignored, so a log written
//     for something else reads as it is.
//   - CSV: a header row naming the columns, query required, count, tags
//     (separated by commas or semicolons) and scenario read when present.
//   - OTLP: the JSON of OTLP ExportTraceServiceRequest messages, one
//     document or one per line. Each RETRIEVER span (openinference.span.kind)
//     is one query, its input.value, with its retrieval.documents.
//
// Detect picks the format from the file name and the first bytes.
package querylog
