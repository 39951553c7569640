// Package htmlreport renders rag-eval's reports as self-contained HTML
// pages, for a person to open in a browser: Judge (a judge run and, with
// --compare-to, its baseline diff), Compare, TrecCompare and Calibration.
// Each is rendered from the same report model as the JSON and Markdown
// outputs (report.Report and report.Diff, compare.Report,
// compare.TrecReport, calibrate.Report) with
// html/template, so every string from the cases and fixtures is escaped
// for where it lands (text, attribute, URL fragment).
//
// One file each, readable offline and in a CI artifact viewer: the CSS,
// the SVG plots and one small script are inline; nothing refers to
// anything outside the file (no CDN, font, image or link but the page's
// own fragments). A Content-Security-Policy meta tag allows only the
// inline style and that one script, by its SHA-256 hash, so no request
// can leave the page and an event handler that got into the markup would
// not run. Without JavaScript everything reads and every case opens
// (<details>); the script adds only the case table's filters (status or
// "not pass", scenario, tag, search) and sorting, and opens a case a link
// points to.
// Same report, same bytes: no timestamp, maps in sorted order.
//
// What each page shows:
//
//   - Judge: the inputs and snapshot; with a diff, the verdict, the inputs
//     that changed, the summary deltas, then the regressed (and removed)
//     cases open with the rules they broke, their failed checks and their
//     first blocks before and after, then the improvements and the other
//     changes, each linking to its case; the summary figures (pass / fail
//     / not run / error, and skipped when a case or check was, pass rate,
//     recall@K, MRR, nDCG@K, fallback rate), statuses and hit levels as
//     stacked bars; per scenario and per tag; the skipped checks with
//     their reasons;
//     then every case, which opens on its query, its checks with their
//     messages (a skipped check with why), its retrieval trace (search mode, evidence status,
//     selected attempt, fallback reason, and each attempt's filter,
//     candidates and bestQuality) and its top-K blocks (rank, source,
//     breadcrumb, qualityScore, relevanceLevel, the excerpt with the
//     case's expected keywords highlighted where the judge finds them:
//     NFKC and case folding, as the keywords check compares).
//   - Compare, for any number of sides: each side's summary (with a
//     letter, a, b, c, …) and what it skipped; the summary table of each
//     side's mean per metric, followed by the letters of the sides it is
//     significantly better than (ranx's style); per pair and metric both
//     means, Δ, its 95% interval drawn as a forest plot on one scale for
//     every row, p, the Holm-adjusted p, win/tie/loss and the t-test p,
//     the rows grouped under a heading per pair when there are several;
//     then per case whose blocks differ in more than scoreLabel in some
//     pair, what differs per pair, and every side's blocks in a column of
//     its own (a column per side, whatever their number, fitting the
//     window), a field marked at a position where the sides do not all
//     agree on it.
//   - TrecCompare (rag-eval trec-compare): the qrels and options, each run
//     with its coverage, and the same summary and pair tables over
//     queries; no per-query evidence, which a run file does not have.
//   - Calibration: per mode, the threshold table, then for the top-K
//     blocks and for the cases (by their best block) the overlaid
//     histograms of relevant and non-relevant qualityScore with a dashed
//     line at each shipped threshold and a solid one at the best
//     separating threshold, and the ROC curve with those thresholds
//     marked; the relevanceLevel precision and the per-case best scores.
//
// The excerpts and the retrieval trace are not in the JSON report: the
// judge keeps them only when asked (judge.Options.Evidence), which
// rag-eval does when --html-report is given. A page rendered from a
// report read back from JSON shows the blocks without their text.
//
// The browser tests (browser_test.go) load each page from a file URL in
// headless Chromium (package headless: the network disabled) and check
// that it logs no error, requests nothing but its own file and opens no
// dialog (a script other than the hashed one is blocked, and seen as an
// error), the number of case rows, that opening a case shows its blocks,
// that the filters and sorting work, that a three-side comparison shows
// its letters, a forest row per pair and metric and every side's blocks in
// columns, that markup in a case id, tag, scenario and excerpt is shown as
// text, that without JavaScript every
// case is listed and opens, that no two labels of a calibration plot
// overlap, and that in a phone-sized window (380 px) no page is wider
// than the window (wide tables scroll by themselves, the plots shrink,
// a case row wraps onto three lines). They skip, saying so, when no Chromium is
// installed (make browser installs it); RAG_REQUIRE_BROWSER=1 (CI) makes
// that a failure.
package htmlreport
