// Package report turns the judge's results into the reports rag-eval
// writes (docs/reports.md) and compares a report with a baseline (docs/reports.md).
//
// There is one model and several small writers, as in benchstat. Build
// makes a Report from a judge.Result once: the summaries and case results
// are the judge's own (judge.Summary, judge.CaseResult), beside what was
// judged (Inputs) and the run's warnings. Every output is drawn from that
// Report by a writer taking an io.Writer:
//
//	rep := report.Build(res, "cases/golden-cases.json", casesSHA256)
//	rep.WriteJSON(w)        // reports/baseline.json
//	rep.WriteMarkdown(w)    // reports/baseline.md
//	rep.WriteJUnit(w)       // --junit
//	rep.WriteText(w, false) // the summary on stdout
//	rep.WriteSummaryMarkdown(w, diff, "reports/current.md") // --summary-markdown
//
// (Example shows them on a small eval set.)
//
// ReadJSON reads a JSON report back (a baseline); Compare diffs two
// reports into a Diff, which has its own WriteJSON and WriteMarkdown.
//
// The files: report.go (the model, Build, ReadJSON), json.go (the JSON
// encoder), markdown.go, junit.go, text.go, summarymd.go (the PR-comment
// summary), and diff.go (the baseline diff and its writers). Table rows, cell escaping and how a cell shows a null
// or a number come from package mdcell.
//
// # JSON
//
// WriteJSON writes the keys of docs/reports.md in their order: schemaVersion (1),
// tool ("rag-eval"), inputs (cases, casesSha256, fixtures, k, and snapshot
// when the caller set it: SnapshotOf the fixture directory's manifest,
// with searchMode, kbScope, pipeline and the seed record), summary,
// byScenario and byTag (summaries by name, keys sorted), warnings, cases
// (in golden-file order). A summary and a case are the JSON form of
// judge.Summary and judge.CaseResult, whose field tags give the keys:
// floats are rounded half away from zero to 6 places in their shortest form
// (contract.Float6), a ratio or mean with nothing to divide by is null, a
// case's reason is null unless it is not_run or error, its hitLevel and
// metrics are null when it was not judged (metrics also for n/a), a
// passed check's message is null, and arrays are never null. What was
// skipped (docs/checks.md: a check that needs a part the pipeline declares
// it lacks) is written only when something was: a check's "skipped": true,
// a case's skippedChecks, a summary's skippedCount and skippedChecks; so
// the report of a run without skipped checks keeps its bytes. The one
// difference from the judge's types: a top candidate's scoreLabel, which
// rag-eval compare shows, is not in the report (schemaVersion 1 predates
// it, and adding it would change every baseline).
//
// The output is indented by two spaces, with no HTML escaping and a
// trailing newline, and is byte for byte what encoding/json writes for the
// Report less that scoreLabel (TestWriteJSONMatchesEncodingJSON). The
// cases are written by hand rather than by reflection, which dominated
// rag-eval's time on 10,000 cases (make bench-judge); the other members go
// through encoding/json.
//
// # Markdown
//
// WriteMarkdown writes, in order: the inputs (cases path, the first 12
// hex digits of its SHA-256, fixtures, K; then the snapshot's line, if
// any); the summary as a table; a table
// per scenario and per tag (counts, pass rate, recall@K, MRR, nDCG@K,
// fallback rate); the warnings; one row per case (scenario, status, hit
// level, first expected rank, the top candidates as "rank. source", the
// failed checks);
// then a section per case that failed, was not run or errored, with its
// query, its reason or the messages of its failed checks. When checks
// were skipped, the summary table has skipped cases and skipped checks
// rows, the group tables a skipped column (when a case was skipped), a
// Skipped checks table counts them by check and reason, and a case's row
// adds "skipped: …" after its failed checks. Every cell is escaped (pipes,
// line breaks, HTML) and a null shows as "—".
//
// # JUnit and text
//
// WriteJUnit writes one testsuite named rag-eval with one testcase per
// case (classname the scenario, name the caseId, time "0"): a failed case
// carries a <failure> whose message lists the failed checks and whose body
// has one "check: message" line each; a not_run or error case carries an
// <error> with its reason; a skipped case a <skipped message="skipped
// checks: …"> (and the suite a skipped count), and a case judged beside
// skipped checks lists them in its <system-out>. WriteJUnitDiff also marks the regressions of a
// baseline diff: a regressed case is a <failure type="regression"> (even
// when it passes) whose message starts "regressed: " and the rules it
// broke, then its failed checks; a removed case is a testcase of classname
// "removed" with such a failure.
//
// WriteSummaryMarkdown writes one document the size of a pull request
// comment: the verdict, the inputs that changed, the regressions (rules,
// failed checks, first block before → after), the failed checks of every
// case that failed, was not run or errored, then a compact summary table
// (and, when checks were skipped, one line saying how many and why); the two lists are
// cut at a line boundary, with a note, so that the whole stays within
// SummaryMarkdownLimit (60,000) bytes, under GitHub's 65,536 characters.
//
// WriteText is the summary a person reads in a terminal or CI log: PASS or
// FAIL (PASS when every case passed or was skipped, not all of them skipped) with the counts and
// pass rate, the skipped checks and why (when some were), the hit levels,
// recall@K, MRR, nDCG@K and the fallback rate, then one line per case that
// did not pass (its failed checks, its skipped ones, or its reason). With colour it paints statuses with ANSI
// escapes.
//
// # Baseline diff
//
// Compare(baseline, current) compares two reports. Its summary holds
// passRate, recallAtK, mrr, ndcgAtK and avgFirstExpectedRank, each as the
// baseline's and the current value rounded to 6 places and their
// difference (null when either is null). Each case is added, removed,
// regressed, improved, changed or unchanged, with the fields that moved
// among status, hitLevel, firstExpectedRank, selectedAttempt,
// fallbackReason, evidenceStatus, rerankTopSource, topSources (the top
// candidates' sources) and skippedChecks. A case regressed when its status
// got worse (pass > skipped > fail > not_run = error), a check that ran in
// the baseline is skipped now (a lost check: "check selected_attempt
// passed → skipped (pipeline declares no trace)"), its hit level got lower (strong > medium > weak
// > miss > null; n/a is not ordered) or its firstExpectedRank got larger
// or was lost; it improved on the mirror image, when nothing got worse; it
// changed when only other fields moved. One exception: a larger
// firstExpectedRank is not worse when the block list only grew (more
// top-K blocks than the baseline, the same first document, and every
// expected document at the same rank among the distinct documents of the
// top K; the expected documents are the golden case's, or in a report read
// back without it the documents of each side's first expected block), so
// such a case is changed, with an explanation. A regressed case carries an
// Explanation: the rules it broke ("status pass → fail"), the current
// failed checks with their messages (or its reason) and the first
// EvidenceBlocks blocks of each side (rank, source, breadcrumb,
// qualityScore). The diff's Inputs list what differs between the two
// reports' inputs: the seed record (chunk sizes, documents, corpus
// fingerprint), search mode, kbScope and every pipeline field (dotted
// paths) when both reports carry a snapshot, then casesSha256 and k;
// InputLines says them for people ("chunk size 800 → 120"). The verdict is "regression", which
// makes rag-eval exit 3, when a case regressed or was removed, or passRate
// or recallAtK dropped (a value that became null dropped); Regressions says
// why, one line each. Cases are listed in baseline order, removed ones
// included, then the added ones in current order. The Markdown diff leads
// with the regressions.
//
// # Determinism and tests
//
// The same inputs give the same bytes in every format: no clock, maps
// written sorted, floats formatted one way. The writers are pinned by
// golden files in testdata, made from the small eval set in
// testdata/evalset (pass, fail, not_run, error, n/a, a graded case, text
// that needs escaping) and testdata/skipset (an http pipeline's fixtures
// with declared capabilities: skipped checks and a skipped case); after a deliberate change, regenerate them with
// `go test ./internal/report -update` and read the diff.
package report
