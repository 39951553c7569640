// Package judge runs the declared checks of golden cases against frozen
// fixtures and aggregates the outcomes (docs/checks.md). It knows the
// contract types and writes no output format; its result types (Result,
// CaseResult, Summary, result.go) are the one shape every report draws
// from, and their JSON tags are the JSON report's (docs/reports.md).
//
// For each case the judge reads fixtures/<caseId>.json:
//
//   - a missing file makes the case not_run (the reason names the path looked for);
//   - a file contract.ReadFixtureFile refuses, a symbolic link, a file that
//     is not a regular file or one over the cap, stops the run: Run returns
//     an error naming it (errors.Is contract.ErrRefused);
//   - an invalid fixture, or one whose caseId differs, makes it error;
//   - otherwise every declared check runs in the order of docs/checks.md and the
//     case passes when all of them pass.
//
// A check that needs a capability (contract.Cap*) the fixture's pipeline
// declares it lacks (its pipeline.capabilities; a fixture without a
// pipeline of its own takes the manifest's) is skipped instead, with the
// reason "pipeline declares no <capability>": neither passed nor failed,
// listed in the case's SkippedChecks and counted apart in the summary. A
// case whose every check but query was skipped has the status skipped (no
// pass); one that passes its other checks is a pass. A field absent without
// such a declaration fails the check as "fixture lacks <path>". The case's
// searchMode is the pipeline's own declared one when it declares one.
//
// checks.go is docs/checks.md in code: the table of checks (name, what declares
// it, the fixture field it reads, the capability it needs, the function that
// judges it), one
// function per check (checkQuery, checkExpectedDocument, checkKeywords,
// checkBreadcrumbs, checkMustNot, checkFound, …), then the hit level and
// the rank metrics. JudgeFixture prepares the case's blocks and runs the
// table in order.
//
// Blocks are taken in block order (ranked blocks by rank, then unranked ones
// in array order); top K means the first K of them. A case that names
// expected documents also gets a hit level (strong, medium, weak, miss) and
// rank metrics computed by package metrics exactly as trec_eval would on the
// case's document ranking; other cases are n/a.
//
// Run judges cases concurrently, one worker per CPU, and decodes from each
// fixture only the fields the checks read (contract.ParseFixture, whose
// scanner copies the judged strings into one buffer per fixture), so
// judging costs little more than reading the files.
//
// A fixture directory is read as one snapshot: if it is replaced while Run
// reads it (rag-snapshot swaps a new one in), Run reads it again. When the
// directory has a manifest (_snapshot.json), fixtures whose searchMode,
// kbScope or pipeline disagree with it (a directory that mixes two
// snapshots) get one warning per kind of disagreement, with the count and
// the first case ids; the judgement is unchanged (see manifest.go).
package judge
