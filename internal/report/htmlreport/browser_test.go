package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/testkit/headless"
)

// The browser tests load each report from a file URL in a headless
// Chromium with the network disabled (package headless). They skip when no
// Chromium is installed, unless RAG_REQUIRE_BROWSER=1 (CI), which makes a
// missing browser a failure.

var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserErr    error
	notFound      error // Chromium is not installed (browserErr too)
	browserCancel context.CancelFunc
)

func TestMain(m *testing.M) {
	code := m.Run()
	if browserCancel != nil {
		browserCancel()
	}
	os.Exit(code)
}

// browser returns the context of the one Chromium the tests share.
func browser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() && os.Getenv("RAG_REQUIRE_BROWSER") == "" {
		t.Skip("browser test: skipped with -short")
	}
	browserOnce.Do(func() {
		path, err := headless.Find()
		if err != nil {
			notFound = err
			browserErr = err
			return
		}
		browserCtx, browserCancel = headless.Start(context.Background(), path, 1280, 900)
		if err := chromedp.Do(browserCtx); err != nil { // start it
			browserErr = fmt.Errorf("start %s: %w", path, err)
		}
	})
	switch {
	case browserErr == nil:
	case notFound != nil && os.Getenv("RAG_REQUIRE_BROWSER") != "1":
		t.Skipf("browser test skipped: %v (set RAG_REQUIRE_BROWSER=1 to make this a failure)", notFound)
	default:
		// Chromium was found but does not start, or it is required.
		t.Fatalf("browser test: %v", browserErr)
	}
	return browserCtx
}

// tab is one loaded report and what it did.
type tab struct {
	t        *testing.T
	ctx      context.Context
	fileURL  string
	mu       sync.Mutex
	requests []string
	problems []string // console errors, exceptions, error log entries
	dialogs  []string
}

// open writes html to a file and loads it in a new tab, recording every
// request, console error, exception and dialog. jsOff disables scripts.
func open(t *testing.T, html []byte, jsOff bool) *tab {
	t.Helper()
	tb := load(t, html, jsOff)
	t.Cleanup(tb.checkQuiet)
	return tb
}

// load is open without the final check.
func load(t *testing.T, html []byte, jsOff bool) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser(t))
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancelT)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, html, 0o644); err != nil {
		t.Fatal(err)
	}
	tb := &tab{t: t, ctx: ctx, fileURL: (&url.URL{Scheme: "file", Path: path}).String()}
	if err := chromedp.Do(ctx); err != nil { // open the tab
		t.Fatal(err)
	}
	err := chromedp.Listen(ctx, func(ev any) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			tb.requests = append(tb.requests, ev.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				tb.problems = append(tb.problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			tb.problems = append(tb.problems, "exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				tb.problems = append(tb.problems, "log "+string(ev.Entry.Source)+": "+ev.Entry.Text)
			}
		case *cdppage.EventJavascriptDialogOpening:
			tb.dialogs = append(tb.dialogs, string(ev.Type)+": "+ev.Message)
			go chromedp.Call(ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: false})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if jsOff {
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(tb.fileURL)); err != nil {
		t.Fatal(err)
	}
	return tb
}

// checkQuiet fails the test if the page made any request but its own
// file, logged an error or warning, threw, or opened a dialog.
func (tb *tab) checkQuiet() {
	for _, p := range tb.noise() {
		tb.t.Error(p)
	}
}

// noise lists what the page did besides showing itself: requests for
// anything but its own file, console errors and warnings, exceptions and
// dialogs.
func (tb *tab) noise() []string {
	// Let late events (a failed image, a dialog) arrive.
	time.Sleep(100 * time.Millisecond)
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var out []string
	for _, r := range tb.requests {
		if r != tb.fileURL {
			out = append(out, "the page requested "+r)
		}
	}
	if len(tb.requests) == 0 {
		out = append(out, "no request recorded, not even the page's own (is the network domain enabled?)")
	}
	out = append(out, tb.problems...)
	for _, d := range tb.dialogs {
		out = append(out, "a dialog opened: "+d)
	}
	return out
}

// The harness sees what it must fail on: a request, a console error, an
// exception and a dialog.
func TestBrowserHarnessSeesNoise(t *testing.T) {
	tb := load(t, []byte(`<!DOCTYPE html><title>noisy</title><img src="http://example.com/x.png">`+
		`<script>console.error("boom"); alert("hi"); setTimeout(() => { throw new Error("late") }, 0)</script>`), false)
	got := strings.Join(tb.noise(), "\n")
	for _, want := range []string{"the page requested http://example.com/x.png", "console.error: \"boom\"", "a dialog opened: alert: hi", "exception: Uncaught"} {
		if !strings.Contains(got, want) {
			t.Errorf("the harness did not record %q; it recorded:\n%s", want, got)
		}
	}
}

// The policy is enforced and its breach seen: a page whose script is not
// the one hashed (one space added) has it blocked, and the harness
// records the violation, so the other tests' quiet pages prove the hash
// right.
func TestBrowserPolicyBlocksOtherScript(t *testing.T) {
	s := string(renderJudge(t))
	if !strings.Contains(s, `"use strict";`) {
		t.Fatal("the script has changed: adapt the test")
	}
	tb := load(t, []byte(strings.Replace(s, `"use strict";`, `"use strict"; `, 1)), false)
	got := strings.Join(tb.noise(), "\n")
	if !strings.Contains(got, "violates the following Content Security Policy directive") {
		t.Errorf("no policy violation recorded; the harness recorded:\n%s", got)
	}
	var filters bool
	tb.mustEval(`document.getElementById("filters").checkVisibility()`, &filters)
	if filters {
		t.Error("the altered script ran: it showed the filters")
	}
}

// eval evaluates a JavaScript expression (awaiting a promise) into out.
func (tb *tab) eval(expr string, out any) error {
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[json.RawMessage](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(v, out)
}

func (tb *tab) mustEval(expr string, out any) {
	tb.t.Helper()
	if err := tb.eval(expr, out); err != nil {
		tb.t.Fatalf("%s: %v", expr, err)
	}
}

// waitTrue evaluates expr until it is true, for up to 5 seconds (an
// event handler runs after the action that caused the event returned).
func (tb *tab) waitTrue(expr string) bool {
	tb.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		var ok bool
		tb.mustEval(expr, &ok)
		if ok || time.Now().After(deadline) {
			return ok
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (tb *tab) click(sel string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		tb.t.Fatalf("click %s: %v", sel, err)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// visibleCases are the ids of the case rows shown, in page order.
const visibleCases = `[...document.querySelectorAll("#cases details.case")].filter(d => d.checkVisibility()).map(d => d.dataset.id)`

func renderJudge(t *testing.T) []byte {
	t.Helper()
	cur, diff := testReports()
	var b bytes.Buffer
	if err := Judge(&b, cur, diff); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestBrowserJudgeReport(t *testing.T) {
	tb := open(t, renderJudge(t), false)

	var ids []string
	tb.mustEval(visibleCases, &ids)
	if want := []string{"ok-1", "bad-2", hostileID, "nr-4", "skip-5"}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("case rows %q, want %q", ids, want)
	}

	// Expanding a case shows its blocks, with the keyword highlighted.
	var blocks int
	tb.mustEval(`[...document.querySelectorAll("#case-ok-1 .block")].filter(b => b.checkVisibility()).length`, &blocks)
	if blocks != 0 {
		t.Fatalf("%d blocks of a closed case are visible", blocks)
	}
	tb.click("#case-ok-1 > summary")
	tb.mustEval(`[...document.querySelectorAll("#case-ok-1 .block")].filter(b => b.checkVisibility()).length`, &blocks)
	if blocks != 2 {
		t.Fatalf("an opened case shows %d blocks, want 2", blocks)
	}
	var marks []string
	tb.mustEval(`[...document.querySelectorAll("#case-ok-1 .excerpt mark")].map(m => m.textContent)`, &marks)
	if fmt.Sprint(marks) != "[Refund Refund]" {
		t.Errorf("highlighted %q, want the two Refund", marks)
	}
	var attempts int
	tb.mustEval(`document.querySelectorAll("#case-bad-2 table.attempts tbody tr").length`, &attempts)
	if attempts != 2 {
		t.Errorf("bad-2's trace shows %d attempts, want 2", attempts)
	}

	// Filters hide the other cases.
	setFilter := func(name, value string) {
		tb.mustEval(fmt.Sprintf(`(() => { const s = document.querySelector("#filters [name=%s]"); s.value = %s; s.dispatchEvent(new Event("change", {bubbles: true})); return true })()`, name, jsString(value)), nil)
	}
	setFilter("status", "fail")
	tb.mustEval(visibleCases, &ids)
	if want := []string{"bad-2", hostileID}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("status fail shows %q, want %q", ids, want)
	}
	var shown string
	tb.mustEval(`document.getElementById("shown").textContent`, &shown)
	if shown != "2 of 5 cases shown" {
		t.Errorf("count says %q", shown)
	}
	setFilter("status", "!pass")
	tb.mustEval(visibleCases, &ids)
	if want := []string{"bad-2", hostileID, "nr-4", "skip-5"}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("status not pass shows %q, want %q", ids, want)
	}
	setFilter("status", "fail")
	setFilter("tag", hostileTag)
	tb.mustEval(visibleCases, &ids)
	if want := []string{hostileID}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("status fail and the hostile tag show %q, want %q", ids, want)
	}
	setFilter("status", "")
	setFilter("tag", "")
	setFilter("scenario", "aiops")
	tb.mustEval(visibleCases, &ids)
	if want := []string{"nr-4", "skip-5"}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("scenario aiops shows %q, want %q", ids, want)
	}
	setFilter("scenario", "")
	setFilter("status", "skipped")
	tb.mustEval(visibleCases, &ids)
	if want := []string{"skip-5"}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("status skipped shows %q, want %q", ids, want)
	}
	setFilter("status", "")

	// A skipped check says so, in the row, the case and the section.
	tb.click("#case-skip-5 > summary")
	var skipped struct{ Row, Check, Section string }
	tb.mustEval(`({
		row: document.querySelector("#case-skip-5 summary .check-fail").textContent,
		check: [...document.querySelectorAll("#case-skip-5 ul.checks li")].map(l => l.textContent).join("; "),
		section: [...document.querySelectorAll("h2")].filter(h => h.textContent === "Skipped checks").map(h => h.parentElement.querySelector("tbody").textContent).join(""),
	})`, &skipped)
	if want := "skipped: selected_attempt"; skipped.Row != want {
		t.Errorf("skipped check row %q, want %q", skipped.Row, want)
	}
	if want := "query passed; selected_attempt skipped: pipeline declares no trace"; skipped.Check != want {
		t.Errorf("skipped check list %q, want %q", skipped.Check, want)
	}
	if want := "selected_attemptpipeline declares no trace1"; skipped.Section != want {
		t.Errorf("skipped checks section %q, want %q", skipped.Section, want)
	}

	var cursor string
	tb.mustEval(`getComputedStyle(document.querySelector("#cases-head button")).cursor`, &cursor)
	if cursor != "pointer" {
		t.Errorf("the sorting headers show a %s cursor", cursor)
	}
	// Sorting: a click sorts ascending, the next descending, ties in page
	// order. Numbers sort as numbers and text as text. A first rank sorts
	// 1 < 2 < none, which sorts as 1000000000. A hit level sorts strong 5 >
	// weak 3 > miss 2 > none.
	for _, c := range []struct {
		key  string
		want []string
	}{
		{"rank", []string{"ok-1", hostileID, "bad-2", "nr-4", "skip-5"}},
		{"rank", []string{"bad-2", "nr-4", "skip-5", hostileID, "ok-1"}},
		{"hit", []string{"nr-4", "skip-5", "bad-2", hostileID, "ok-1"}},
		{"hit", []string{"ok-1", hostileID, "bad-2", "nr-4", "skip-5"}},
		{"id", []string{hostileID, "bad-2", "nr-4", "ok-1", "skip-5"}},
	} {
		tb.click(`#cases-head button[data-key="` + c.key + `"]`)
		tb.mustEval(visibleCases, &ids)
		if fmt.Sprint(ids) != fmt.Sprint(c.want) {
			t.Errorf("sorted by %s: %q, want %q", c.key, ids, c.want)
		}
	}

	// Markup in a case is text: no element made of it, no script run.
	var got struct {
		Images, Scripts int
		ID, Excerpt     string
		Tag, Scenario   string
	}
	tb.mustEval(`(() => {
		const d = [...document.querySelectorAll("#cases details.case")].find(d => d.dataset.id === `+jsString(hostileID)+`);
		d.open = true;
		return {
			images: document.images.length,
			scripts: document.scripts.length,
			id: d.querySelector(".case-id").textContent,
			excerpt: d.querySelector(".excerpt").textContent,
			tag: d.querySelector(".tag").textContent,
			scenario: d.dataset.scenario,
		};
	})()`, &got)
	if got.Images != 0 || got.Scripts != 1 {
		t.Errorf("%d images and %d scripts in the page, want 0 and 1", got.Images, got.Scripts)
	}
	// Markup is shown as text.
	if got.ID != hostileID {
		t.Errorf("case id shown as %q, want %q", got.ID, hostileID)
	}
	if got.Excerpt != hostileExcerpt {
		t.Errorf("excerpt shown as %q, want %q", got.Excerpt, hostileExcerpt)
	}
	if got.Tag != hostileTag {
		t.Errorf("tag shown as %q, want %q", got.Tag, hostileTag)
	}
	if want := "</script><script>alert(4)</script>"; got.Scenario != want {
		t.Errorf("scenario shown as %q, want %q", got.Scenario, want)
	}

	// The diff links to the case, and following the link opens it.
	var regressed []string
	tb.mustEval(`[...document.querySelectorAll("#diff .diffcase")].map(d => d.querySelector(".badge").textContent + " " + d.querySelector("code").textContent)`, &regressed)
	if want := []string{"regressed bad-2", "removed gone-5"}; fmt.Sprint(regressed) != fmt.Sprint(want) {
		t.Errorf("diff cases %q, want %q", regressed, want)
	}
	tb.click(`#diff a[href="#case-bad-2"]`)
	if !tb.waitTrue(`document.getElementById("case-bad-2").open`) {
		t.Error("following the diff's link did not open the case")
	}
}

// Without JavaScript every case is listed and opens. Only the filters,
// which need it, are hidden.
func TestBrowserJudgeReportWithoutJS(t *testing.T) {
	tb := open(t, renderJudge(t), true)
	var n int
	// Evaluation from DevTools still runs with page scripts disabled.
	tb.mustEval(`document.querySelectorAll("#cases details.case").length`, &n)
	if n != 5 {
		t.Fatalf("%d case rows, want 5", n)
	}
	var filters int
	tb.mustEval(`+document.getElementById("filters").checkVisibility()`, &filters)
	if filters != 0 {
		t.Error("the filters show without JavaScript")
	}
	var cursor string
	tb.mustEval(`getComputedStyle(document.querySelector("#cases-head button")).cursor`, &cursor)
	if cursor != "default" {
		t.Errorf("the headers, which sort only with JavaScript, show a %s cursor without it", cursor)
	}
	tb.click("#case-bad-2 > summary")
	var blocks int
	tb.mustEval(`[...document.querySelectorAll("#case-bad-2 .block")].filter(b => b.checkVisibility()).length`, &blocks)
	if blocks != 1 {
		t.Errorf("the opened case shows %d blocks, want 1", blocks)
	}
}

func TestBrowserCalibrationReport(t *testing.T) {
	browser(t) // skip before the work
	var b bytes.Buffer
	if err := Calibration(&b, shippedCalibration(t)); err != nil {
		t.Fatal(err)
	}
	tb := open(t, b.Bytes(), false)
	var got struct{ Modes, Hists, ROCs, Lines, Marks int }
	tb.mustEval(`({
		modes: document.querySelectorAll("section.mode").length,
		hists: document.querySelectorAll("figure.plot svg[aria-label*=histogram]").length,
		rocs: document.querySelectorAll("figure.plot svg[aria-label*=ROC]").length,
		lines: document.querySelectorAll("figure.plot svg[aria-label*=histogram] line[stroke-width]").length,
		marks: document.querySelectorAll("figure.plot svg[aria-label*=ROC] circle").length,
	})`, &got)
	// Two modes, each with blocks and cases: a histogram and a ROC curve
	// each. The blocks' plots have lines at best and 3 shipped thresholds,
	// the cases' at best and 2.
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("calibration page: modes", got.Modes, 2)
	check("calibration page: histograms", got.Hists, 4)
	check("calibration page: ROC curves", got.ROCs, 4)
	check("calibration page: threshold lines", got.Lines, 2*(4+3))
	check("calibration page: ROC marks", got.Marks, 2*(4+3))
	// Every label of a plot can be read: no two texts of one plot overlap
	// (the shipped hybrid ROC has best 0.362335 and levels.medium 0.35 a
	// few pixels apart) and none runs out of its plot.
	var clashes []string
	tb.mustEval(`(() => {
		const out = [];
		document.querySelectorAll("figure.plot svg").forEach((svg, n) => {
			const box = svg.getBoundingClientRect();
			const texts = [...svg.querySelectorAll("text")].map(t => [t.textContent, t.getBoundingClientRect()]);
			texts.forEach(([s, r], i) => {
				if (r.left < box.left || r.right > box.right || r.top < box.top || r.bottom > box.bottom) {
					out.push("plot " + n + ": " + s + " runs out of the plot");
				}
				texts.slice(i + 1).forEach(([s2, r2]) => {
					if (r.left < r2.right && r2.left < r.right && r.top < r2.bottom && r2.top < r.bottom) {
						out.push("plot " + n + ": " + s + " overlaps " + s2);
					}
				});
			});
		});
		return out;
	})()`, &clashes)
	for _, c := range clashes {
		t.Error(c)
	}
}

// The comparison of three sides has a column per side in the summary, with
// the letters of the sides each is significantly better than. It has a
// heading and one forest row per pair and metric. Every case that differs
// in some pair is listed, opening on all three sides' blocks in columns
// that fit the window.
func TestBrowserComparisonReport(t *testing.T) {
	browser(t) // skip before the work
	rep := shippedComparison(t)
	var b bytes.Buffer
	if err := Compare(&b, rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Sides) != 3 || len(rep.Pairs) != 3 {
		t.Fatalf("%d sides, %d pairs: want the three-way comparison", len(rep.Sides), len(rep.Pairs))
	}
	wantCases, wantLetters, wantForests := 0, []string{}, 0
	for i := range rep.Cases {
		for k := range rep.Pairs {
			if rep.Cases[i].Substantive(k) {
				wantCases++
				break
			}
		}
	}
	for _, m := range rep.Metrics {
		for s := range rep.Sides {
			var ls string
			for _, o := range m.BetterThan[s] {
				for j := range rep.Sides {
					if rep.Sides[j].Name == o {
						ls += compare.Letter(j)
					}
				}
			}
			if ls != "" {
				wantLetters = append(wantLetters, m.Name+" "+rep.Sides[s].Name+" "+ls)
			}
		}
	}
	for _, p := range rep.Pairs {
		wantForests += len(p.Metrics)
	}
	if len(wantLetters) == 0 {
		t.Fatal("no side is significantly better than another on the shipped set: the letters go untested")
	}
	tb := open(t, b.Bytes(), false)
	var got struct {
		Heads, Rows, Forests, Intervals, PairHeads int
		Letters                                    []string
		First                                      string
	}
	tb.mustEval(`({
		heads: document.querySelectorAll("table.summary thead th").length,
		rows: document.querySelectorAll("#cases details.case").length,
		forests: document.querySelectorAll("svg.forest").length,
		intervals: document.querySelectorAll("svg.forest circle").length,
		pairHeads: document.querySelectorAll("tr.pairhead").length,
		letters: [...document.querySelectorAll("table.summary tbody td sup.better")].map(s => {
			const td = s.parentElement, tr = td.parentElement;
			const side = document.querySelectorAll("table.summary thead th")[td.cellIndex].textContent.replace(/ \(.\)$/, "");
			return tr.cells[0].textContent + " " + side + " " + s.textContent;
		}),
		first: document.querySelector("#cases details.case").id,
	})`, &got)
	if got.Heads != 4 || got.Rows != wantCases || got.Forests != wantForests || got.Intervals != wantForests || got.PairHeads != 3 {
		t.Fatalf("comparison page: %+v; want 4 summary columns, %d case rows, %d forest rows with intervals, 3 pair headings", got, wantCases, wantForests)
	}
	for i, l := range wantLetters {
		name, rest, _ := strings.Cut(l, " ")
		wantLetters[i] = metricTitle(name) + " " + rest
	}
	if fmt.Sprint(got.Letters) != fmt.Sprint(wantLetters) {
		t.Errorf("summary letters %q, want %q", got.Letters, wantLetters)
	}
	// Opening a case shows the three sides' blocks in columns, what differs
	// marked, with their excerpts, within the window's width.
	tb.click("#" + got.First + " > summary")
	var shown struct {
		Sides, Columns, Positions, Marked, Excerpts int
		Overflow                                    bool
	}
	tb.mustEval(`(() => { const d = document.getElementById(`+jsString(got.First)+`); return {
		sides: d.querySelectorAll("table.sides thead th").length - 1,
		columns: Math.max(...[...d.querySelectorAll("table.sides tbody tr")].map(r => r.querySelectorAll("td.pos").length)),
		positions: [...d.querySelectorAll("td.pos")].filter(e => e.checkVisibility()).length,
		marked: d.querySelectorAll("td.pos .diffmark").length,
		excerpts: [...d.querySelectorAll("td.pos .excerpt")].filter(e => e.checkVisibility() && e.textContent !== "").length,
		overflow: d.querySelector("table.sides").getBoundingClientRect().right > document.documentElement.clientWidth,
	} })()`, &shown)
	if shown.Sides != 3 || shown.Columns != 3 || shown.Positions == 0 || shown.Marked == 0 || shown.Excerpts == 0 || shown.Overflow {
		t.Errorf("an opened case shows %+v; want 3 side columns with marked fields and excerpts, in the window", shown)
	}
	// A link to a case opens it.
	second := ""
	tb.mustEval(`[...document.querySelectorAll("#cases details.case")][1].id`, &second)
	tb.mustEval(`(() => { location.hash = "#" + `+jsString(second)+`; return true })()`, nil)
	if !tb.waitTrue(`document.getElementById(` + jsString(second) + `).open`) {
		t.Error("a link to a case did not open it")
	}
}

// The TREC run comparison shows the runs, the summary and the pairs'
// forest rows, and no case.
func TestBrowserTrecComparisonReport(t *testing.T) {
	browser(t) // skip before the work
	var b bytes.Buffer
	if err := TrecCompare(&b, testTrecReport(t)); err != nil {
		t.Fatal(err)
	}
	tb := open(t, b.Bytes(), false)
	var got struct{ Runs, Summary, Forests, Intervals, PairHeads, Cases int }
	tb.mustEval(`({
		runs: document.querySelectorAll("table.runs tbody tr").length,
		summary: document.querySelectorAll("table.summary tbody tr").length,
		forests: document.querySelectorAll("svg.forest").length,
		intervals: document.querySelectorAll("svg.forest circle").length,
		pairHeads: document.querySelectorAll("tr.pairhead").length,
		cases: document.querySelectorAll("details").length,
	})`, &got)
	if want := (struct{ Runs, Summary, Forests, Intervals, PairHeads, Cases int }{3, 2, 6, 6, 3, 0}); got != want {
		t.Errorf("trec comparison page: %+v, want %+v", got, want)
	}
}

// In a phone-sized window no page is wider than the window, every case
// open: wide tables scroll inside themselves, the plots shrink and the
// case rows wrap.
func TestBrowserNarrowWindow(t *testing.T) {
	browser(t) // skip before the work
	for name, html := range renders(t) {
		t.Run(name, func(t *testing.T) {
			tb := open(t, html, false)
			if err := chromedp.Do(tb.ctx, chromedp.EmulateViewport(380, 800)); err != nil {
				t.Fatal(err)
			}
			var w struct{ Scroll, Client int }
			tb.mustEval(`(document.querySelectorAll("details").forEach(d => d.open = true),
				{scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth})`, &w)
			if w.Client != 380 || w.Scroll > w.Client {
				t.Errorf("the page is %d px wide in a window of %d, want 380", w.Scroll, w.Client)
			}
		})
	}
}
