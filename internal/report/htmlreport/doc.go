// Package htmlreport renders rag-eval's reports as self-contained HTML
// pages, for a person to open in a browser. Judge renders a judge run and,
// with --compare-to, its baseline diff. Compare, TrecCompare and
// Calibration render the other reports. Each page is rendered with
// html/template from the same report model as the JSON and Markdown
// outputs: report.Report and report.Diff, compare.Report,
// compare.TrecReport, calibrate.Report. So every string from the cases and
// fixtures is escaped for where it lands, be it text, an attribute or a
// URL fragment.
//
// Each page is one file, readable offline and in a CI artifact viewer. The
// CSS, the SVG plots and one small script are inline. Nothing refers to
// anything outside the file: no CDN, font, image or link but the page's own
// fragments. A Content-Security-Policy meta tag allows only the inline
// style and that one script, by its SHA-256 hash. So no request can leave
// the page, and an event handler that got into the markup would not run.
// Without JavaScript everything reads and every case opens (<details>).
// The script only adds the case table's filters and sorting, and opens a
// case a link points to. The filters are status (draft among them) or
// "not pass", scenario, tag and search. The same report gives the same
// bytes: there is no timestamp, and maps are written in sorted order.
//
// What each page shows:
//
//   - Judge: the inputs and snapshot. With a diff, the verdict, the inputs
//     that changed and the summary deltas come next. Then the regressed and
//     removed cases are open with the rules they broke, their failed checks
//     and their first blocks before and after. The improvements and the
//     other changes follow, each linking to its case. Then come the summary
//     figures, the statuses and hit levels as stacked bars, the figures per
//     scenario and per tag, and the skipped checks with their reasons. The
//     figures are pass, fail, not run and error, skipped when a case or
//     check was, pass rate, recall@K, MRR, nDCG@K and fallback rate, and
//     the drafts when some case is one. The tables per scenario and per tag
//     then have a drafts column, and a draft's row a badge of its own. Last
//     comes every case, which opens on its query, its checks, its retrieval
//     trace and its top-K blocks. A check shows its message, a skipped one
//     why. A draft says it is not judged, and why it shows no blocks when
//     it has none. The trace shows the search mode, evidence status, selected
//     attempt, fallback reason, and each attempt's filter, candidates and
//     bestQuality. A block shows its rank, source, breadcrumb, qualityScore,
//     relevanceLevel, evidenceKey and excerpt. The excerpt highlights the
//     case's expected keywords where the judge finds them, after NFKC and
//     case folding, as the keywords check compares. A pipeline that
//     declares it lacks parts gets a line under the snapshot naming the
//     checks it cannot be judged on, and no figure, column or field of
//     those parts, such as the fallback rate without trace.
//   - Compare, for any number of sides: each side's summary, with a letter
//     a, b, c, …, what it skipped and the checks it cannot be judged on. The summary table gives each side's
//     mean per metric, followed by the letters of the sides it is
//     significantly better than, in ranx's style. Per pair and metric come
//     both means, Δ, its 95% interval, p, the Holm-adjusted p, win/tie/loss
//     and the t-test p. The intervals are drawn as a forest plot on one
//     scale for every row. The rows are grouped under a heading per pair
//     when there are several. Then, per case whose blocks differ in more
//     than scoreLabel in some pair, the page says what differs per pair. It
//     shows every side's blocks in a column of its own, whatever the number
//     of sides, fitting the window. A block shows its evidenceKey, so that
//     two chunks of one section differ. A field is marked at a position
//     where the sides do not all agree on it.
//   - TrecCompare, for rag-eval trec-compare: the qrels and options, each
//     run with its coverage, and the same summary and pair tables over
//     queries. There is no per-query evidence, which a run file does not
//     have.
//   - Calibration, per mode: the threshold table, then two plots for the
//     top-K blocks and two for the cases, by their best block. The overlaid
//     histograms of relevant and non-relevant qualityScore have a dashed
//     line at each shipped threshold and a solid one at the best separating
//     threshold. The ROC curve has those thresholds marked. The
//     relevanceLevel precision and the per-case best scores follow.
//
// The excerpts and the retrieval trace are not in the JSON report. The
// judge keeps them only when asked (judge.Options.Evidence), which rag-eval
// does when --html-report is given. A page rendered from a report read back
// from JSON shows the blocks without their text. A page shows the first
// 16,000 characters of an excerpt, the largest chunk rag-seed makes. A
// longer excerpt ends with a note of how many characters it had, so that
// an external pipeline's 10 MB excerpts cannot make a page of hundreds of
// megabytes.
//
// The browser tests (browser_test.go) load each page from a file URL in
// headless Chromium, with the network disabled (package headless). They
// check that:
//
//   - the page logs no error, requests nothing but its own file and opens
//     no dialog. A script other than the hashed one is blocked, and seen as
//     an error.
//   - the number of case rows is right, and opening a case shows its blocks
//   - the filters and sorting work
//   - a three-side comparison shows its letters, a forest row per pair and
//     metric, and every side's blocks in columns
//   - markup in a case id, tag, scenario and excerpt is shown as text
//   - without JavaScript every case is listed and opens
//   - no two labels of a calibration plot overlap
//   - in a phone-sized window, 380 px, no page is wider than the window.
//     Wide tables scroll by themselves, the plots shrink, and a case row
//     wraps onto three lines.
//
// They skip, saying so, when no Chromium is installed. make browser
// installs it. RAG_REQUIRE_BROWSER=1, as in CI, makes a missing browser a
// failure.
package htmlreport
