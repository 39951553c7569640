// Package report turns the judge's results into the reports rag-eval
// writes, and compares a report with a baseline (docs/reports.md).
//
// There is one model and several small writers, as in benchstat. Build
// makes a Report from a judge.Result once. Its summaries and case results
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
// Example shows them on a small eval set.
//
// ReadJSON reads a JSON report back, such as a baseline. Compare diffs two
// reports into a Diff, which has its own WriteJSON and WriteMarkdown.
//
// The files are report.go (the model, Build, ReadJSON), json.go (the JSON
// encoder), markdown.go, junit.go, text.go, summarymd.go (the PR-comment
// summary) and diff.go (the baseline diff and its writers). Table rows,
// cell escaping and how a cell shows a null or a number come from package
// mdcell.
//
// # JSON
//
// WriteJSON writes the keys of docs/reports.md in their order:
// schemaVersion (1), tool ("rag-eval"), inputs, summary, byScenario and
// byTag, warnings, cases. The inputs are cases, casesSha256, fixtures and
// k, then snapshot when the caller set it. The snapshot is SnapshotOf the
// fixture directory's manifest, with searchMode, kbScope, pipeline and the
// seed record. byScenario and byTag hold summaries by name, keys sorted.
// The cases are in golden-file order.
//
// A summary and a case are the JSON form of judge.Summary and
// judge.CaseResult, whose field tags give the keys.
//
//   - Floats are rounded half away from zero to 6 places, in their shortest
//     form (contract.Float6).
//   - A ratio or mean with nothing to divide by is null.
//   - A case's reason is null unless the case is not_run or error, or a
//     draft whose fixture is missing, broken or stale.
//   - A case's hitLevel and metrics are null when it was not judged. Its
//     metrics are null for n/a too.
//   - A passed check's message is null.
//   - Arrays are never null.
//
// What was skipped is written only when something was: a check's
// "skipped": true, a case's skippedChecks, a summary's skippedCount and
// skippedChecks. A check is skipped when it needs a part the pipeline
// declares it lacks (docs/checks.md). So the report of a run without
// skipped checks keeps its bytes. So it is for drafts: a summary's
// draftCount is written only when some case is a draft.
//
// The differences from the judge's types are in a top candidate. Its
// scoreLabel, which rag-eval compare shows, is not in the report.
// schemaVersion 1 predates it, and adding it would change every baseline.
// Its evidenceKey, or the start of its excerpt when it has none
// (excerptStart), ends it, each written only when not "". encoding/json
// leaves them out of the judge's types, so the comparison's JSON has
// neither. The baseline diff reads them back (ReadJSON), to show which
// chunk a baseline's block was.
//
// The output is indented by two spaces, with no HTML escaping and a
// trailing newline. It is byte for byte what encoding/json writes for the
// Report less that scoreLabel and with those two keys
// (TestWriteJSONMatchesEncodingJSON). The
// cases are written by hand rather than by reflection, which dominated
// rag-eval's time on 10,000 cases (make bench-judge). The other members go
// through encoding/json.
//
// # Markdown
//
// WriteMarkdown writes, in order:
//
//   - the inputs: the cases path, the first 12 hex digits of its SHA-256,
//     the fixtures and K, then the snapshot's line if there is one
//   - the summary as a table
//   - a table per scenario and per tag: counts, pass rate, recall@K, MRR,
//     nDCG@K and fallback rate
//   - the warnings
//   - one row per case: scenario, status, hit level, first expected rank,
//     the top candidates as "rank. source", the failed checks
//   - a section per case that failed, was not run or errored, with its
//     query and its reason or the messages of its failed checks
//
// When checks were skipped, the summary table has rows for the skipped
// cases and checks. The group tables get a skipped column when a case was
// skipped. A Skipped checks table counts them by check and reason. A case's
// row adds "skipped: …" after its failed checks. When some case is a draft,
// the summary table has a drafts row and the group tables a drafts column.
// A draft's row shows the status draft and its candidates, and it has no
// section. Every cell is escaped (pipes, line breaks, HTML), and a null
// shows as "—".
//
// # Parts the pipeline lacks
//
// A pipeline that declares its capabilities may lack parts of a lookup
// result (Report.Lacks, from the snapshot's manifest). The Markdown, text,
// JUnit, PR summary and HTML then leave out what no case can have:
//
//   - without trace, the fallback rate and the selected attempt
//   - without evidenceStatus, the evidence status histogram
//   - without qualityScore, the relevance levels histogram
//
// Each says once, near the top, which checks the pipeline cannot be judged
// on and why (Report.Unjudgeable). A report of a pipeline that declares
// nothing, the builtin one, keeps every row. The JSON report is the same
// either way.
//
// # JUnit and text
//
// WriteJUnit writes one testsuite named rag-eval with one testcase per
// case. A testcase's classname is the scenario, its name the caseId, its
// time "0".
//
//   - A failed case carries a <failure>. Its message lists the failed
//     checks, and its body has one "check: message" line each.
//   - A not_run or error case carries an <error> with its reason.
//   - A skipped case carries a <skipped message="skipped checks: …">, and
//     the suite counts it in a skipped attribute.
//   - A case judged beside skipped checks lists them in its <system-out>.
//   - A draft carries a <skipped message="draft: not judged until it is
//     assessed">, its reason after it when it has one, and the suite
//     counts it in the skipped attribute too.
//
// WriteJUnitDiff also marks the regressions of a baseline diff. A regressed
// case is a <failure type="regression">, even when it passes. Its message
// starts "regressed: " with the rules it broke, then names its failed
// checks. A removed case is a testcase of classname "removed" with such a
// failure.
//
// WriteSummaryMarkdown writes one document the size of a pull request
// comment. It holds the verdict, the inputs that changed, the regressions
// (rules, failed checks, first block before → after) and the failed checks
// of every case that failed, was not run or errored. Drafts are counted on
// its first line and listed nowhere. A compact summary
// table ends it, with one line saying how many checks were skipped and why
// when some were. The two lists are cut at a line boundary, with a note, so
// that the whole stays within SummaryMarkdownLimit (60,000) bytes. That is
// under GitHub's 65,536 characters.
//
// WriteText is the summary a person reads in a terminal or CI log. It
// starts with PASS or FAIL, the counts and the pass rate. PASS means every
// case passed, was skipped or is a draft, and not every judged case was
// skipped. A run of drafts only is PASS, with a line saying nothing is
// gated. Then come the skipped checks and why when some were, the hit
// levels, recall@K, MRR, nDCG@K and the fallback rate. Last is one line per
// case that did not pass and is no draft, with its failed checks, its
// skipped ones or its reason. With colour
// it paints the statuses with ANSI escapes.
//
// # Baseline diff
//
// Compare(baseline, current) compares two reports. Its summary holds
// passRate, recallAtK, mrr, ndcgAtK and avgFirstExpectedRank. Each is given
// as the baseline's value and the current one, rounded to 6 places, and
// their difference, which is null when either is null.
//
// Each case is added, removed, regressed, improved, changed or unchanged.
// Its diff lists the fields that moved among status, hitLevel,
// firstExpectedRank, selectedAttempt, fallbackReason, evidenceStatus,
// rerankTopSource, topSources (the top candidates' sources) and
// skippedChecks. A case regressed when any of these holds:
//
//   - its status got worse, in the order pass > skipped > fail > not_run =
//     error
//   - a check that ran in the baseline is skipped now, a lost check:
//     "check selected_attempt passed → skipped (pipeline declares no
//     trace)"
//   - its hit level got lower, in the order strong > medium > weak > miss >
//     null, with n/a not ordered
//   - its firstExpectedRank got larger or was lost
//
// A draft is never judged, so a case that is a draft in the baseline is
// changed when a field moved and unchanged otherwise, whatever it is now:
// neither a draft's new candidates nor its becoming a judged case is a
// regression or an improvement. A judged case that is a draft now left the
// gate, as a removed case does: it regressed ("status pass → draft: the
// case is no longer judged").
//
// A case improved on the mirror image, when nothing got worse. It changed
// when only other fields moved. One exception: a larger firstExpectedRank
// is not worse when the block list only grew. That is more top-K blocks
// than the baseline, the same first document, and every expected document
// at the same rank among the distinct documents of the top K. The expected
// documents are the golden case's. In a report read back without it, they
// are the documents of each side's first expected block. Such a case is
// changed, with an explanation.
//
// A regressed case carries an Explanation. It holds the rules it broke
// ("status pass → fail"), the current failed checks with their messages or
// its reason, and the first EvidenceBlocks blocks of each side (rank,
// source, breadcrumb, qualityScore).
//
// The diff's Inputs list what differs between the two reports' inputs. When
// both reports carry a snapshot, these are the seed record (chunk sizes,
// documents, corpus fingerprint), the search mode, kbScope and every
// pipeline field as a dotted path. casesSha256 and k follow. InputLines
// says them for people ("chunk size 800 → 120").
//
// The verdict is "regression", which makes rag-eval exit 3, when a case
// regressed or was removed, or when passRate or recallAtK dropped. A value
// that became null dropped. Regressions says why, one line each. Cases are
// listed in baseline order, removed ones included, then the added ones in
// current order. The Markdown diff leads with the regressions.
//
// # Determinism and tests
//
// The same inputs give the same bytes in every format. There is no clock,
// maps are written sorted and floats are formatted one way. Golden files in
// testdata pin the writers. They are made from three small eval sets:
//
//   - testdata/evalset holds a pass, a fail, a not_run, an error, an n/a, a
//     graded case and text that needs escaping
//   - testdata/skipset holds an http pipeline's fixtures with declared
//     capabilities, so skipped checks and a skipped case
//   - testdata/draftset holds a pass, a fail and two drafts, one with a
//     fixture and one without
//
// After a deliberate change, regenerate them with
// `go test ./internal/report -update` and read the diff.
package report
