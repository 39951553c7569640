// Package contract is the data contract shared by rag-seed, rag-snapshot and
// rag-eval: golden cases (cases/golden-cases.json, docs/golden-cases.md) and
// fixtures (fixtures/<caseId>.json, docs/fixtures.md), their decoders and
// their encoders.
//
// Golden cases are decoded strictly. An unknown field, a wrong type, a
// duplicate caseId or a case that asserts nothing is an error naming the
// file, line, case and field, and every problem in the file is reported at
// once (ParseGolden). Fixtures are decoded tolerantly. Unknown fields are
// ignored and only the fields the judge reads are decoded (DecodeFixture),
// so judging large fixture sets costs little more than reading them.
//
// Fixtures are encoded deterministically (EncodeFixture), with a stable
// field order, a two-space indent and floats rounded to 6 decimals. A
// regenerated fixture thus only differs from the old one when the
// retrieval result differs. A result marked Partial, such as an external
// pipeline's or a decoded fixture, records which fields it carries
// (LookupResult.Has, EvidenceBlock.Has, HasRank, HasQuality). Only those
// are written, so what a pipeline did not send stays absent. A Pipeline may
// declare its own search mode and the parts of a result it produces
// (Capabilities, the Cap constants). The judge skips the checks that need a
// part it declares it lacks.
//
// Every input file of the tools is read through OpenFile or ReadFile
// (readfile.go): regular files only, a cap on what is read whole, and
// nothing that can block (docs/reliability.md). ReadFixtureFile reads a
// fixture or a manifest, never through a symbolic link. ReadSetFile reads
// a golden-cases file or a report the user names. Every JSON reader skips
// one leading byte order mark (TrimBOM).
//
// Besides the standard library the package imports only jsontext
// (github.com/go-json-experiment/json), the JSON reader of ParseGolden, and
// diag, whose Error every reader returns.
package contract
