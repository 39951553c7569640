package htmlreport

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/calibrate"
	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// renders are every report of the tests, rendered.
func renders(t *testing.T) map[string][]byte {
	t.Helper()
	cur, diff := testReports()
	out := map[string][]byte{}
	var b bytes.Buffer
	if err := Judge(&b, cur, diff); err != nil {
		t.Fatal(err)
	}
	out["judge+diff"] = bytes.Clone(b.Bytes())
	b.Reset()
	if err := Judge(&b, cur, nil); err != nil {
		t.Fatal(err)
	}
	out["judge"] = bytes.Clone(b.Bytes())
	b.Reset()
	if err := Calibration(&b, shippedCalibration(t)); err != nil {
		t.Fatal(err)
	}
	out["calibration"] = bytes.Clone(b.Bytes())
	b.Reset()
	if err := Compare(&b, shippedComparison(t)); err != nil {
		t.Fatal(err)
	}
	out["comparison"] = bytes.Clone(b.Bytes())
	b.Reset()
	if err := TrecCompare(&b, testTrecReport(t)); err != nil {
		t.Fatal(err)
	}
	out["trec comparison"] = bytes.Clone(b.Bytes())
	return out
}

func TestDeterministic(t *testing.T) {
	first, second := renders(t), renders(t)
	for name, b := range first {
		if !bytes.Equal(b, second[name]) {
			t.Errorf("%s: two renderings of the same report differ", name)
		}
	}
}

// A report refers to nothing outside itself: no src attribute, no URL
// but a fragment, no @import or url() in its style.
func TestSelfContained(t *testing.T) {
	attr := regexp.MustCompile(`(?i)\s(src|href|action|xlink:href|srcset|poster|data)\s*=\s*"([^"]*)"`)
	for name, b := range renders(t) {
		s := string(b)
		for _, m := range attr.FindAllStringSubmatch(s, -1) {
			if m[1] != "href" || !strings.HasPrefix(m[2], "#") {
				t.Errorf("%s: %s=%q", name, m[1], m[2])
			}
		}
		// Text may mention URLs. Markup and style may not.
		for _, bad := range []string{"<link", "<iframe", "<img", "<object", "<embed", "<base", "<form action"} {
			if i := strings.Index(s, bad); i >= 0 {
				t.Errorf("%s has %q: …%s…", name, bad, s[max(0, i-60):min(len(s), i+60)])
			}
		}
		style := s[strings.Index(s, "<style>"):strings.Index(s, "</style>")]
		for _, bad := range []string{"@import", "url(", "http:", "https:"} {
			if strings.Contains(style, bad) {
				t.Errorf("%s: the style has %q", name, bad)
			}
		}
		if n := strings.Count(s, "<script"); n != 1 {
			t.Errorf("%s has %d script elements, want 1", name, n)
		}
		if !strings.Contains(s, `http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;`) {
			t.Errorf("%s has no content security policy", name)
		}
	}
}

// Markup in the model is escaped wherever it lands.
func TestEscaped(t *testing.T) {
	s := string(renders(t)["judge+diff"])
	for _, raw := range []string{hostileID, hostileTag, "</script><script>alert"} {
		if strings.Contains(s, raw) {
			t.Errorf("the page contains %q unescaped", raw)
		}
	}
	if !strings.Contains(s, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Error("the hostile case id is not shown escaped")
	}
}

// The TREC comparison page shows the runs, the summary and the pairs, a
// run name that is markup as text, and no case.
func TestTrecCompare(t *testing.T) {
	s := string(renders(t)["trec comparison"])
	// The run name that is markup is shown escaped.
	if strings.Contains(s, hostileRun) {
		t.Errorf("the page holds the run name %s as markup", hostileRun)
	}
	if want := "<td>&lt;script&gt;alert(5)&lt;/script&gt; (c)</td>"; !strings.Contains(s, want) {
		t.Errorf("the page lacks the escaped run name %s", want)
	}
	for _, want := range []string{
		"<title>Run comparison: bm25 vs dense vs &lt;script&gt;alert(5)&lt;/script&gt;</title>",
		`<th class="num">bm25 (a)</th><th class="num">dense (b)</th>`,
		`<tr class="pairhead"><th colspan="11">bm25 (a) vs dense (b), Δ = bm25 − dense</th></tr>`,
		// A pair's heading names its sides by the summary's letters.
		`<tr class="pairhead"><th colspan="11">dense (b) vs &lt;script&gt;alert(5)&lt;/script&gt; (c), Δ = dense − &lt;script&gt;alert(5)&lt;/script&gt;</th></tr>`,
		"qrels <code>qrels.txt</code> · qrels sha256 <code>fedcba987654</code> · measures <code>map P.2</code>",
		"4 queries evaluated by at least one run",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(s, `<svg class="forest"`); n != 6 {
		t.Errorf("%d forest rows, want 6 (3 pairs × 2 measures)", n)
	}
	if strings.Contains(s, "<details") {
		t.Error("the TREC page shows cases")
	}
}

// The hash of the script in the policy is the script's.
func TestPolicyHashesScript(t *testing.T) {
	if !strings.Contains(csp, "'sha256-"+hash(script)+"'") {
		t.Fatal(csp)
	}
	s := string(renders(t)["judge"])
	i, j := strings.Index(s, "<script>"), strings.Index(s, "</script>")
	if i < 0 || j < i {
		t.Fatal("the page has no <script>…</script>")
	}
	if got := s[i+len("<script>") : j]; got != script {
		t.Errorf("the page's script is not the hashed one:\n%.200s\nwant\n%.200s", got, script)
	}
}

func TestHighlight(t *testing.T) {
	for _, c := range []struct {
		text     string
		keywords []string
		want     string
	}{
		{"A Refund is issued. refunds!", []string{"refund"}, "A [Refund] is issued. [refund]s!"},
		{"no match here", []string{"vpn"}, "no match here"},
		{"Straße und STRASSE", []string{"strasse"}, "[Straße] und [STRASSE]"}, // full case folding, as the judge
		{"ＶＰＮ setup", []string{"vpn"}, "[ＶＰＮ] setup"},
		{"overlapping abcabc", []string{"abca", "cabc"}, "overlapping [abcabc]"},
		{"Ünïcode Ü", []string{"ü"}, "[Ü]nïcode [Ü]"},
		{"x", []string{"", "  "}, "x"},
		// NFKC composes across runes: a decomposed é is the keyword's é.
		{"Cafe\u0301 au lait", []string{"café"}, "[Cafe\u0301] au lait"},
		{"Cafe\u0301 au lait", []string{"cafe"}, "Cafe\u0301 au lait"},
		// A keyword that ends inside a character's normal form marks the
		// whole character (ﬁ is fi).
		{"ﬁle ﬁx", []string{"f"}, "[ﬁ]le [ﬁ]x"},
		{"ﬁle", []string{"ile"}, "[ﬁle]"},
	} {
		var b strings.Builder
		for _, s := range highlight(c.text, c.keywords) {
			if s.Mark {
				fmt.Fprintf(&b, "[%s]", s.Text)
			} else {
				b.WriteString(s.Text)
			}
		}
		if b.String() != c.want {
			t.Errorf("highlight(%q, %q) = %q, want %q", c.text, c.keywords, b.String(), c.want)
		}
	}
}

// An unavailable mode or side is said, with its reason, without plots.
func TestUnavailable(t *testing.T) {
	rep := calibrate.Build("cases.json", "", 5, []calibrate.Input{{
		Fixtures: "sidecar", Manifest: &contract.Manifest{Status: contract.StatusUnavailable, Reason: "sidecar <down>"},
	}})
	var b bytes.Buffer
	if err := Calibration(&b, rep); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "Unavailable: sidecar &lt;down&gt;. No statistics.") {
		t.Errorf("unavailable mode: the page does not say Unavailable: sidecar &lt;down&gt;. No statistics.:\n%s", s)
	} else if strings.Contains(s, "<svg width=\"520\"") {
		t.Errorf("unavailable mode: the page has a plot:\n%s", s)
	}
	g, sum, dir := shippedSet(t)
	left, err := compare.LoadSide("hybrid", filepath.Join(dir, "fixtures"), g, judge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	right := compare.Side{Name: "sidecar", Fixtures: "sidecar", Reason: "connection refused"}
	b.Reset()
	if err := Compare(&b, compare.Build(compare.Inputs{Cases: "cases.json", CasesSHA256: sum, K: 5}, []compare.Side{left, right}, -1, 0)); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	// The unavailable side is said.
	for _, want := range []string{"Unavailable: connection refused", "<li>hybrid vs sidecar: no case is compared, sidecar is unavailable.</li>"} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(s, "<details") {
		t.Error("a case is shown with a side unavailable")
	}
	if strings.Contains(s, "<circle") {
		t.Error("an interval is shown with a side unavailable")
	}
}

// Every block field the sides disagree on is marked, scoreLabel too: the
// shipped hybrid blocks are labelled RRF and the dense ones COSINE.
func TestCompareMarksScoreLabel(t *testing.T) {
	s := string(renders(t)["comparison"])
	for _, want := range []string{`<span class="diffmark">RRF</span>`, `<span class="diffmark">COSINE</span>`} {
		if !strings.Contains(s, want) {
			t.Errorf("the comparison lacks %s", want)
		}
	}
}

// highlight keeps the text, and marks something exactly when the judge
// finds the keyword in it (the normal form of the text contains the
// keyword's).
func FuzzHighlight(f *testing.F) {
	for _, s := range [][2]string{
		{"A Refund is issued.", "refund"}, {"Straße", "strasse"}, {"Cafe\u0301 au lait", "café"},
		{"ﬁle ﬁx", "f"}, {"ＶＰＮ setup", "vpn"}, {"证书过期 certificate", "证书"}, {"x", " "},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, kw string) {
		if !utf8.ValidString(text) || !utf8.ValidString(kw) {
			t.Skip()
		}
		segs := highlight(text, []string{kw})
		var b strings.Builder
		marked := false
		for _, s := range segs {
			b.WriteString(s.Text)
			marked = marked || s.Mark
		}
		if b.String() != text {
			t.Fatalf("highlight(%q, %q) changed the text to %q", text, kw, b.String())
		}
		k := textnorm.Normalize(kw)
		if found := k != "" && strings.Contains(textnorm.Normalize(text), k); marked != found {
			t.Fatalf("highlight(%q, %q): marked %v, the judge finds it %v", text, kw, marked, found)
		}
	})
}

// Two fixture sets of one search mode, such as the shipped hybrid with two
// embedders, get headings that tell them apart. A mode alone keeps its
// name.
func TestCalibrationHeadings(t *testing.T) {
	g, sum, dir := shippedSet(t)
	var ins []calibrate.Input
	for _, d := range []string{"fixtures", "fixtures-dense", "fixtures-local"} {
		in, err := calibrate.Load(g, filepath.Join(dir, d), 0)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	var b bytes.Buffer
	if err := Calibration(&b, calibrate.Build("cases.json", sum, g.ReportK(0), ins)); err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`<h2>([^<]*)</h2>`).FindAllStringSubmatch(b.String(), -1)
	var heads []string
	for _, m := range got {
		heads = append(heads, m[1])
	}
	want := []string{"hybrid · " + filepath.Join(dir, "fixtures"), "dense", "hybrid · " + filepath.Join(dir, "fixtures-local")}
	if fmt.Sprint(heads) != fmt.Sprint(want) {
		t.Errorf("headings %q, want %q", heads, want)
	}
}

// TestJudgeMarksExpectedBlocks: a block is marked expected by the golden
// case's rule (source in expectedSources, or docId in expectedDocIds,
// trimmed), and none is without the golden case.
func TestJudgeMarksExpectedBlocks(t *testing.T) {
	c := testCases()[0]
	expected := func(c *judge.CaseResult) []bool {
		var out []bool
		for _, b := range caseOf(c).Blocks {
			out = append(out, b.Expected)
		}
		return out
	}
	if got := expected(&c); !slices.Equal(got, []bool{true, false}) {
		t.Errorf("by expectedSources: %v, want [true false]", got)
	}
	c.Case = &contract.Case{CaseID: c.CaseID, ExpectedDocIDs: []string{" kb/billing/invoices.md "}}
	if got := expected(&c); !slices.Equal(got, []bool{false, true}) {
		t.Errorf("by expectedDocIds: %v, want [false true]", got)
	}
	c.Case = nil
	if got := expected(&c); !slices.Equal(got, []bool{false, false}) {
		t.Errorf("without the golden case: %v, want [false false]", got)
	}
}

// TestJudgeDiffListsMetricRegressions: the diff's list of regressions is
// the summary metrics that dropped. The cases' regressions are in their
// section, with why.
func TestJudgeDiffListsMetricRegressions(t *testing.T) {
	cur, _ := testReports()
	base := *cur
	base.Summary.PassRate = fp(1)
	base.Cases = slices.Clone(cur.Cases)
	b := &base.Cases[1]
	b.Status, b.HitLevel, b.FirstExpectedRank, b.FailedChecks = judge.StatusPass, sp(judge.HitStrong), ip(1), []string{}
	d := report.Compare(&base, cur, "baseline.json", "current.json")
	if len(d.Regressions) != 2 {
		t.Fatalf("diff regressions %q, want a metric's and a case's", d.Regressions)
	}
	v := diffOf(d, nil)
	if want := []string{"passRate dropped from 1 to " + mdcell.Float(cur.Summary.PassRate)}; !slices.Equal(v.Regressions, want) {
		t.Errorf("listed regressions %q, want %q", v.Regressions, want)
	}
	if s := v.Sections[0]; len(s.Cases) != 1 {
		t.Errorf("regressions section with %d cases, want 1: %+v", len(s.Cases), s)
	} else {
		if s.Cases[0].ID != "bad-2" {
			t.Errorf("regressions section: case %q, want bad-2", s.Cases[0].ID)
		}
		if len(s.Cases[0].Why) == 0 {
			t.Error("regressions section: case bad-2 without why")
		}
	}
}

// TestBlocksToldApart: a block shows its evidenceKey, or the start of its
// excerpt when it has no key and no excerpt is shown, in the judge's
// blocks, the diff's blocks before and after, and the comparison's cells,
// escaped.
func TestBlocksToldApart(t *testing.T) {
	c := testCases()[0]
	c.TopCandidates[0].EvidenceKey = "kb/billing/refunds.md#Refunds@2<b>"
	c.TopCandidates[1].Excerpt, c.TopCandidates[1].ExcerptStart = "", "Invoices are sent monthly."
	v := caseOf(&c)
	if b := v.Blocks[0]; b.Key != c.TopCandidates[0].EvidenceKey || b.Start != "" {
		t.Errorf("block 1: key %q start %q, want its evidenceKey", b.Key, b.Start)
	}
	if b := v.Blocks[1]; b.Key != "" || b.Start != "Invoices are sent monthly." {
		t.Errorf("block 2: key %q start %q, want the start of its excerpt", b.Key, b.Start)
	}
	res := &judge.Result{Golden: &contract.GoldenFile{}, Fixtures: "fixtures", Cases: []judge.CaseResult{c}}
	cur := report.Build(res, "cases.json", "0123456789abcdef")
	base := report.Build(&judge.Result{Golden: &contract.GoldenFile{}, Fixtures: "fixtures", Cases: testCases()[:1]}, "cases.json", "0123456789abcdef")
	base.Cases[0].TopCandidates[0].EvidenceKey = "kb/billing/refunds.md#Refunds@1"
	cur.Cases[0].Status, cur.Cases[0].HitLevel = judge.StatusFail, sp(judge.HitMiss)
	var b bytes.Buffer
	if err := Judge(&b, cur, report.Compare(base, cur, "baseline.json", "current.json")); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"evidenceKey <code>kb/billing/refunds.md#Refunds@2&lt;b&gt;</code>",
		"· “Invoices are sent monthly.”</div>",
		"<td>billing/refunds.md · Billing &gt; Refunds · key kb/billing/refunds.md#Refunds@1 · 0.71</td><td>billing/refunds.md · Billing &gt; Refunds · key kb/billing/refunds.md#Refunds@2&lt;b&gt; · 0.71</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("judge page lacks %s", want)
		}
	}
	if strings.Contains(page, "@2<b>") {
		t.Error("judge page has the key unescaped")
	}
	b.Reset()
	if err := Compare(&b, shippedComparison(t)); err != nil {
		t.Fatal(err)
	}
	if want := `<div class="meta">evidenceKey <code>rag-eval/`; !strings.Contains(b.String(), want) {
		t.Errorf("comparison page lacks %s", want)
	}
}

// TestOmitsWhatThePipelineLacks: the judge page of a pipeline that
// declares only contextPack has no fallback rate figure or column and no
// attempt, fallback, evidence status or rerank field, and says once which
// checks it cannot be judged on. Without the declaration it has them all.
func TestOmitsWhatThePipelineLacks(t *testing.T) {
	cur, _ := testReports()
	p := &contract.Pipeline{Name: "http", SearchMode: contract.ModeBM25, Capabilities: []string{contract.CapContextPack}}
	cur.Inputs.Snapshot = &report.Snapshot{SearchMode: "hybrid", KBScope: "kb", Pipeline: p}
	page := func() string {
		var b bytes.Buffer
		if err := Judge(&b, cur, nil); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	got := page()
	const line = "Checks this pipeline cannot be judged on: breadcrumbs (pipeline declares no breadcrumb), selected_attempt (pipeline declares no trace), " +
		"fallback_reason (pipeline declares no fallback), evidence_status (pipeline declares no evidenceStatus), rerank_top_source (pipeline declares no rerank)."
	if n := strings.Count(got, line); n != 1 {
		t.Errorf("the unjudgeable line %d times, want once", n)
	}
	for _, bad := range []string{"fallback rate", "selected attempt <b>", "fallback reason <b>", "evidence status <b>", "rerank top source <b>", "requested"} {
		if strings.Contains(got, bad) {
			t.Errorf("page has %q", bad)
		}
	}
	if !strings.Contains(got, "search mode <b>hybrid</b>") {
		t.Error("page lacks the cases' search mode")
	}
	p.Capabilities = nil
	got = page()
	if strings.Contains(got, "cannot be judged") {
		t.Error("undeclared: page says what cannot be judged")
	}
	for _, want := range []string{`<div class="l">fallback rate</div>`, `<th class="num">fallback rate</th>`, "selected attempt <b>", "fallback reason <b>", "evidence status <b>", "rerank top source <b>"} {
		if !strings.Contains(got, want) {
			t.Errorf("undeclared: page lacks %q", want)
		}
	}
}

// TestCompareOmitsWhatNoSideHas: sides whose pipelines declare no trace
// show no fallback rate and no selected attempt, and each says which
// checks it cannot be judged on.
func TestCompareOmitsWhatNoSideHas(t *testing.T) {
	m := &contract.Manifest{Status: contract.StatusAvailable, Pipeline: &contract.Pipeline{Name: "http", Capabilities: []string{contract.CapContextPack}}}
	var sides []compare.Side
	for i, name := range []string{"bm25", "es"} {
		cases := testCases()
		if i == 1 {
			cases[0].TopCandidates = cases[0].TopCandidates[1:]
		}
		sides = append(sides, compare.Side{Name: name, Fixtures: name, Result: &judge.Result{Golden: &contract.GoldenFile{}, Cases: cases, Manifest: m}})
	}
	var b bytes.Buffer
	if err := Compare(&b, compare.Build(compare.Inputs{Cases: "cases.json", K: 5}, sides, -1, 1)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "Cannot be judged on: breadcrumbs (pipeline declares no breadcrumb), selected_attempt (pipeline declares no trace)"); n != 2 {
		t.Errorf("%d sides say what they cannot be judged on, want 2", n)
	}
	for _, bad := range []string{"fallback rate", contract.AttemptFiltered} {
		if strings.Contains(page, bad) {
			t.Errorf("page has %q", bad)
		}
	}
	if !strings.Contains(page, `<details class="case" id="case-ok-1"`) {
		t.Error("page lacks the differing case")
	}
}
