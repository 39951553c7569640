// Package judge runs the declared checks of golden cases against frozen
// fixtures and aggregates the outcomes (docs/checks.md). It knows the
// contract types and writes no output format. Its result types in
// result.go, Result, CaseResult and Summary, are the one shape every report
// draws from, and their JSON tags are the JSON report's (docs/reports.md).
//
// For each case the judge reads fixtures/<caseId>.json:
//
//   - a missing file makes the case not_run, and the reason names the path looked for;
//   - a file contract.ReadFixtureFile refuses stops the run: a symbolic
//     link, a file that is not a regular file, or one over the cap. Run
//     returns an error naming it (errors.Is contract.ErrRefused);
//   - an invalid fixture, or one whose caseId differs, makes it error;
//   - otherwise every declared check runs in the order of docs/checks.md and the
//     case passes when all of them pass.
//
// A check may need a capability (contract.Cap*) that the fixture's pipeline
// declares it lacks in its pipeline.capabilities. A fixture without a
// pipeline of its own takes the manifest's. Such a check is skipped
// instead, with the reason "pipeline declares no <capability>". It is
// neither passed nor failed, it is listed in the case's SkippedChecks, and
// the summary counts it apart. A case whose every check but query was
// skipped has the status skipped, not pass. One that passes its other
// checks is a pass. A field absent without such a declaration fails the
// check as "fixture lacks <path>". The case's searchMode is the pipeline's
// own declared one when it declares one.
//
// A draft case ("draft": true, drafted from a query log by rag-eval draft)
// is not judged. Its status is draft whether or not it has a fixture, so
// that a draft never makes a run fail. Its fixture's top candidates and
// traced fields are reported, for a reader to see what the pipeline
// retrieves. Its reason says why none are shown: no fixture, a broken one,
// or one made for another query text. A draft has no checks, hit level or
// metrics. The summary counts it in caseCount and draftCount and in
// nothing else.
//
// checks.go is docs/checks.md in code. It holds the table of checks, with
// for each its name, what declares it, the fixture field it reads, the
// capability it needs and the function that judges it. Then come one
// function per check (checkQuery, checkExpectedDocument, checkKeywords,
// checkBreadcrumbs, checkMustNot, checkFound, …), the hit level and the
// rank metrics. JudgeFixture prepares the case's blocks and runs the table
// in order.
//
// Blocks are taken in block order: ranked blocks by rank, then unranked
// ones in array order. Top K means the first K of them. A case that names
// expected documents also gets a hit level (strong, medium, weak, miss) and
// rank metrics, computed by package metrics exactly as trec_eval would on
// the case's document ranking. Other cases are n/a.
//
// Run judges cases concurrently, one worker per CPU. It decodes from each
// fixture only the fields the checks read, with contract.ParseFixture,
// whose scanner copies the judged strings into one buffer per fixture. So
// judging costs little more than reading the files.
//
// A fixture directory is read as one snapshot. rag-snapshot swaps a new
// directory in, and if that happens while Run reads, Run reads it again.
// When the directory has a manifest (_snapshot.json), fixtures whose
// searchMode, kbScope or pipeline disagree with it mean a directory that
// mixes two snapshots. They get one warning per kind of disagreement, with
// the count and the first case ids. The judgement is unchanged
// (manifest.go).
package judge
