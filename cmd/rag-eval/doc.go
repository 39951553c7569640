// Command rag-eval judges the fixtures that rag-snapshot froze against the
// golden cases, offline: it reads files and writes reports. It links no
// database, vector store or network client, so it runs anywhere the files
// are.
//
// Usage:
//
//	rag-eval [flags]                          judge: reports/baseline.json|md
//	rag-eval compare [flags]                  two or more fixture sets case by case, with significance tests
//	rag-eval calibrate [flags]                how well qualityScore separates relevant evidence
//	rag-eval export-trec --qrels F --run F    the judge's rankings and grades as TREC files
//	rag-eval trec [flags] QRELS RUN           what trec_eval 9.0.8 prints for them
//	rag-eval init --dir DIR                   a new eval set: starter cases and documents
//	rag-eval trec-compare [flags] QRELS RUN RUN…  TREC runs pair by pair, with significance tests
//	rag-eval draft --log F (--out F | --merge F)  draft golden cases from a query log
//
// Every path has its default inside the eval set, --dir (eval/rag-retrieval,
// docs/README.md): the golden cases <dir>/cases/golden-cases.json, the fixtures
// <dir>/fixtures (hybrid) and <dir>/fixtures-dense, the reports in
// <dir>/reports. Inputs are read and checked before anything is written, so
// an input error writes nothing; each report is written atomically, and the
// same inputs give the same bytes (no timestamps, fixed order, floats
// rounded to 6 decimals). Warnings (fixtures that match no case, a fixture
// directory that mixes snapshots) go to stderr, prefixed "rag-eval:
// warning:", and into the reports.
//
// The golden cases are strict: an unknown field, a wrong type, a duplicate
// or unsafe caseId, a case that asserts nothing stops the run with exit 2,
// every problem listed as file:line: case "id": field "f": message.
// Fixtures are tolerant: a missing fixture makes its case not_run, a
// broken one error, and unknown fields are ignored.
//
// # Exit status
//
// 0 every case passed or was skipped (and no regression); 1 every case was skipped, or some case failed, was not run
// or errored; 2 usage or input error (nothing is written); 3 regression
// against the --compare-to baseline. When several apply: 2, then 3, then 1.
// A draft case is never judged and never changes the exit status.
// compare, calibrate, export-trec, trec and draft exit 0 or 2: what they
// report never fails them.
//
// # Judging
//
// rag-eval judges every case's fixture, writes the JSON and Markdown reports
// (and JUnit with --junit) and prints a summary. With --compare-to it diffs
// the run against an accepted baseline report: the reports default to
// current.json|md, the diff goes to baseline-diff.json|md, and a
// regression (a case that passed and no longer does, a lower hit level, a
// worse or lost first expected rank, a removed case, a lower pass rate or
// recall@K) exits 3. A report path equal to the baseline, to the cases file
// or inside a fixture directory is refused.
//
// Flags of rag-eval:
//
//	    --cases string                  golden cases file (default <dir>/cases/golden-cases.json)
//	    --compare-to string             baseline JSON report to diff against; a regression exits 3
//	    --diff-json-report string       diff JSON path (default <dir>/reports/baseline-diff.json)
//	    --diff-markdown-report string   diff Markdown path (default <dir>/reports/baseline-diff.md)
//	    --dir string                    eval set directory; the default of every other path is inside it (default "eval/rag-retrieval")
//	    --fixtures string               fixture directory (default <dir>/fixtures)
//	-h, --help                          help for rag-eval
//	    --html-report string            also write a self-contained HTML report to this path (with --compare-to, the diff first)
//	    --json-report string            JSON report path (default <dir>/reports/baseline.json, or current.json with --compare-to)
//	    --junit string                  also write a JUnit XML report to this path (regressed cases fail, with --compare-to)
//	    --k int                         K for cases that do not set their own (default: the cases file's k, else 5)
//	    --markdown-report string        Markdown report path (default <dir>/reports/baseline.md, or current.md with --compare-to)
//	-q, --quiet                         do not print the summary
//	    --summary-markdown string       also write a PR-comment-sized Markdown summary to this path (verdict, regressions, failed checks; under 60,000 bytes)
//	-v, --version                       version for rag-eval
//
// # Comparing fixture sets
//
// rag-eval compare judges two or more fixture directories (by default
// hybrid <dir>/fixtures against dense <dir>/fixtures-dense; --side NAME=DIR
// repeated for more) against the same cases and reports, for every pair of
// sides (or every side against --baseline), per case what differs and, per
// metric, both means, the paired difference Δ = a − b, its 95% bootstrap
// interval, a paired randomization p-value, the p-value adjusted by Holm
// over the whole report and win/tie/loss counts, from a fixed seed per
// pair; a summary table marks each side's means with the letters of the
// sides it is significantly better than. A side that does not exist or
// whose manifest says "unavailable" (an unreachable sidecar) is reported as
// such, the others in full. Each side says what it skipped (the checks its
// pipeline declares it cannot serve). --html-report adds a page with the
// means, a forest plot of every pair's intervals and every differing case
// with each side's blocks in a column.
//
// Flags of rag-eval compare:
//
//	    --baseline NAME            compare every side against the side NAME only (default: every pair)
//	    --cases string             golden cases file (default <dir>/cases/golden-cases.json)
//	    --dir string               eval set directory; the default of every other path is inside it (default "eval/rag-retrieval")
//	-h, --help                     help for compare
//	    --html-report string       also write a self-contained HTML report to this path (one file, readable offline)
//	    --json-report string       JSON report path (default <dir>/reports/compare.json)
//	    --k int                    K for cases that do not set their own (default: the cases file's k, else 5)
//	    --left string              left fixture directory (default <dir>/fixtures)
//	    --left-name string         name of the left side in the reports (default "hybrid")
//	    --markdown-report string   Markdown report path (default <dir>/reports/compare.md)
//	-q, --quiet                    do not print the summary
//	    --right string             right fixture directory (default <dir>/fixtures-dense)
//	    --right-name string        name of the right side in the reports (default "dense")
//	    --side NAME=DIR            a side as NAME=DIR (repeatable, two or more; instead of --left and --right)
//
// # Comparing TREC runs
//
// rag-eval trec-compare evaluates two or more TREC runs against the same
// qrels exactly as rag-eval trec does (the same -c, -l, -M and -m) and
// compares them query by query with the statistics of rag-eval compare:
// every pair of runs, or every run against --baseline. Each run's mean is
// the "all" value rag-eval trec prints; a judged query a run lacks counts 0
// with -c and is dropped from that run's pairs without. Runs are named by
// their tag column, else by their file names. --html-report writes the
// means and pairs as a page, with a forest plot of the intervals.
//
// Flags of rag-eval trec-compare:
//
//	-M, --Max_retrieved_per_topic N   evaluate only the first N documents of each ranking (default: all)
//	    --baseline NAME               compare every run against the run NAME only (default: every pair)
//	-c, --complete_rel_info_wanted    compare over every qrels query; a query a run lacks counts as zero
//	-h, --help                        help for trec-compare
//	    --html-report string          also write a self-contained HTML report to this path (one file, readable offline)
//	    --json-report string          also write the JSON report to this path
//	-l, --level_for_rel N             a document is relevant when its grade is >= N (default 1)
//	    --markdown-report string      also write the Markdown report to this path
//	-m, --measure MEASURE             MEASURE to compare, with cutoffs as MEASURE.k,k,… (repeatable, required)
//	    --quiet                       do not print the summary
//
// # Calibrating the thresholds
//
// rag-eval calibrate reports, per search mode, the qualityScore
// distributions of relevant and non-relevant top-K blocks and the
// thresholds that best separate them (maximal Youden's J = TPR − FPR),
// beside the thresholds the fixtures were produced with (from each
// directory's _snapshot.json). A default directory that does not exist is
// skipped with a warning; one named with --fixtures must exist.
//
// Flags of rag-eval calibrate:
//
//	    --cases string             golden cases file (default <dir>/cases/golden-cases.json)
//	    --dir string               eval set directory; the default of every other path is inside it (default "eval/rag-retrieval")
//	    --fixtures stringArray     fixture directory, repeatable (default <dir>/fixtures and <dir>/fixtures-dense)
//	-h, --help                     help for calibrate
//	    --html-report string       also write a self-contained HTML report to this path (one file, readable offline)
//	    --json-report string       JSON report path (default <dir>/reports/calibration.json)
//	    --k int                    K for cases that do not set their own (default: the cases file's k, else 5)
//	    --markdown-report string   Markdown report path (default <dir>/reports/calibration.md)
//	-q, --quiet                    do not print the summary
//
// # TREC interop
//
// rag-eval export-trec writes the judge's document rankings as a TREC run
// and their grades as TREC qrels (grades are trec_eval levels as they are);
// rag-eval trec evaluates them, or any run and qrels, and prints byte for
// byte what trec_eval 9.0.8 prints for the same arguments: every measure,
// the measure sets (official without -m, all_trec, set, qrels_jg,
// all_prefs, prefs), trec_eval's parameter syntax, -q -c -n -J -l -M -N -Z
// -R (qrels, qrels_jg, prefs, qrels_prefs) -T -v; trec_eval's -D (debug
// trace) is refused with an error, not ignored. Its tests run trec_eval's own
// quicktest suite byte for byte; package internal/metrics documents every
// rule and the traps of the measures' definitions. trec -c on export-trec's
// files reproduces each case's recip_rank (mrr), ndcg_cut.K, recall.K
// (docRecallAtK) and P.K of the JSON report.
//
// Flags of rag-eval export-trec:
//
//	    --cases string      golden cases file (default <dir>/cases/golden-cases.json)
//	    --dir string        eval set directory; the default of --cases and --fixtures is inside it (default "eval/rag-retrieval")
//	    --fixtures string   fixture directory (default <dir>/fixtures)
//	-h, --help              help for export-trec
//	    --k int             K for cases that do not set their own
//	    --qrels string      qrels output file (required)
//	    --run string        run output file (required)
//
// Flags of rag-eval trec:
//
//	-D, --Debug_level string          trec_eval's debug trace: not implemented, refused with an error
//	-J, --Judged_docs_only            drop retrieved documents without a judgment before computing anything
//	-M, --Max_retrieved_per_topic N   evaluate only the first N documents of each ranking (default: all)
//	-N, --Number_docs_in_coll int     number of documents in the collection (utility's fourth coefficient)
//	-R, --Rel_info_format string      format of QRELS: qrels, qrels_jg (second field = judgment group), prefs ("qid jg jsg docno level") or qrels_prefs (qrels read as preferences) (default "qrels")
//	-T, --Results_format string       format of RUN: trec_results (default "trec_results")
//	-Z, --Zscore FILE                 print z scores against the "qid measure mean stddev" lines of FILE
//	-c, --complete_rel_info_wanted    average over every qrels query; queries without results count as zero
//	    --decimals D                  print D decimals instead of trec_eval's 4 (not trec_eval output; for cross-checks)
//	-h, --help                        help for trec
//	-l, --level_for_rel N             a document is relevant when its grade is >= N (default 1)
//	-m, --measure MEASURE             MEASURE or measure set to compute, with parameters as MEASURE.p,p,… (repeatable; default official)
//	-n, --nosummary                   print no "all" lines
//	-q, --query_eval_wanted           print each query's values before the "all" values
//	-v, --version                     print which evaluator this is and rag-eval's version, and exit
//
// # Creating an eval set
//
// rag-eval init --dir DIR writes a new eval set: DIR/cases/golden-cases.json
// with three starter cases (two lookups, one off-topic question, each with
// notes), two starter documents in DIR/seed-docs, empty DIR/fixtures and
// DIR/reports, and DIR/.gitignore for the reports that are not the accepted
// baseline (current.*, baseline-diff.*, compare.*, junit*.xml). The kb
// scope of the documents and the golden file is --kb-scope, by default the
// directory's name as a slug, so that every set has its own namespace in
// the store. The starter is valid as written: rag-seed loads it, and its
// cases pass on the builtin pipeline. Then init prints the commands that
// seed, snapshot and judge the set. It never overwrites: when one of its
// files exists, it names every one that does and writes nothing (exit 2).
//
// Flags of rag-eval init:
//
//	    --dir string        directory of the new eval set (required; created if missing)
//	-h, --help              help for init
//	    --kb-scope string   kb scope of the set's documents and golden file (default: the directory's name as a slug, e.g. payments)
//
// # Drafting cases from a query log
//
// rag-eval draft --log FILE reads a query log (plain text, JSONL, CSV or an
// OTLP JSON export of OpenInference retriever spans, --format auto tells
// them apart) and writes its queries as draft golden cases, "draft": true
// with no expectation: a new file with --out, or added after the last case
// of --merge FILE, whose bytes are kept and whose queries are never drafted
// again. Queries are normalised (NFKC, case folding, white space), exact
// and near duplicates (punctuation, the spaces of CJK text) merged with
// their counts summed, and each gets the caseId q- and 10 hex digits of
// the SHA-256 of its normalised key, the same in every run. --sample N
// keeps N, stratified by frequency (frequent and rare) and script (cjk,
// latin, mixed, other), the same for a --seed on every machine. From a
// trace export, --fixtures DIR also writes what each span retrieved as the
// fixtures of a side named production. rag-snapshot runs drafts like any
// case, and rag-eval reports them with the status draft, in no rate, no
// mean and no gate. Every problem of the log is listed as FILE:LINE, and
// nothing is written (exit 2). docs/golden-sets.md is the workflow.
//
// Flags of rag-eval draft:
//
//	    --fixtures string   write what the log's retriever spans retrieved as fixtures of the production side to this directory (otlp logs)
//	    --format string     format of the log: auto, text, jsonl, csv or otlp (default "auto")
//	-h, --help              help for draft
//	    --kb-scope string   kbScope of the new golden file (with --out)
//	    --log string        query log to draft from (required)
//	    --merge string      add the drafts to this golden file, after its last case
//	    --out string        write a new golden file of the drafts here (refused when it exists)
//	-q, --quiet             do not print the summary
//	    --sample int        draft N queries, stratified by frequency and script (default: every query)
//	    --scenario string   scenario of the drafts whose log record gives none (default "chat")
//	    --seed uint         seed of the sample (default 1)
//
// # Examples
//
// On the small eval set of the source tree, cmd/rag-eval/testdata/manual:
// three cases (two that expect a document, one off-topic), fixtures of a
// hybrid snapshot that passes them all and of a dense one that finds a decoy
// for "disk full", and a query log of six lines. Run there, each command
// prints what is shown (TestManual runs them).
//
//	$ rag-eval
//	PASS  3 cases: 3 pass, 0 fail, 0 not run, 0 error (pass rate 1)
//	hit levels: strong 2, medium 0, weak 0, miss 0, n/a 1
//	recall@3 1  mrr 1  ndcg@3 1  keyword coverage —  fallback rate 0.333333
//
//	$ rag-eval compare
//	hybrid: 3/3 cases pass (eval/rag-retrieval/fixtures)
//	dense: 2/3 cases pass (eval/rag-retrieval/fixtures-dense)
//	hybrid vs dense (Δ = hybrid − dense):
//	metric        hybrid    dense     Δ          95% CI         p  p adj.  W/T/L  pairs  t-test p
//	recallAtK     1         0.5       +0.5       [0, 1]         1  1       1/1/0  2      0.5
//	mrr           1         0.5       +0.5       [0, 1]         1  1       1/1/0  2      0.5
//	ndcgAtK       1         0.5       +0.5       [0, 1]         1  1       1/1/0  2      0.5
//	docRecallAtK  1         0.5       +0.5       [0, 1]         1  1       1/1/0  2      0.5
//	precisionAtK  0.333333  0.166667  +0.166667  [0, 0.333333]  1  1       1/1/0  2      0.5
//	passRate      1         0.666667  +0.333333  [0, 1]         1  1       1/2/0  3      0.42265
//	* p adj. < 0.05 (Holm over 6 p-values).
//	hybrid vs dense: 1 of 3 cases differ in content or order.
//	reports: eval/rag-retrieval/reports/compare.json, eval/rag-retrieval/reports/compare.md
//
//	$ rag-eval calibrate
//	hybrid: blocks best 0.4 (TPR 1, FPR 0; 2 relevant, 1 non-relevant) vs shipped medium 0.15, high 0.3, minQuality 0.13; cases best 0.4 (TPR 1, FPR 0; 2 relevant, 1 non-relevant) vs shipped lowQuality 0.15
//	dense: blocks best 0.6 (TPR 1, FPR 0; 1 relevant, 2 non-relevant) vs shipped medium 0.15, high 0.3, minQuality 0.13; cases best 0.45 (TPR 1, FPR 0; 1 relevant, 1 non-relevant) vs shipped lowQuality 0.15
//
//	$ rag-eval export-trec --qrels qrels.txt --run run.txt
//	$ rag-eval trec -c -q -m recip_rank -m ndcg_cut.3 qrels.txt run.txt
//	recip_rank            	c1	1.0000
//	ndcg_cut_3            	c1	1.0000
//	recip_rank            	c2	1.0000
//	ndcg_cut_3            	c2	1.0000
//	recip_rank            	all	1.0000
//	ndcg_cut_3            	all	1.0000
//
//	$ rag-eval draft --log queries.txt --out drafts.json
//	queries.txt (text): 6 records, 6 queries asked, 6 distinct, 4 after merging near duplicates
//	wrote 4 drafts to drafts.json
//
// In CI, accept a baseline once, then gate every change on it:
//
//	rag-eval --compare-to eval/rag-retrieval/reports/baseline.json --junit junit.xml
//
// This package is rag-eval's code and manual, importable so that the binary,
// cmd/rag-eval, is a few lines and go install names it rag-eval (docs/release.md).
package main
