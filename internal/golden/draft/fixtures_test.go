package draft

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/golden/querylog"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// otlpSpan is a retriever span asking query at start seconds, having
// retrieved docs ("id:content:score", the score optional).
func otlpSpan(query string, start int, docs ...string) string {
	attrs := []string{
		`{"key": "openinference.span.kind", "value": {"stringValue": "RETRIEVER"}}`,
		fmt.Sprintf(`{"key": "input.value", "value": {"stringValue": %q}}`, query),
	}
	for i, d := range docs {
		parts := strings.Split(d, ":")
		p := fmt.Sprintf("retrieval.documents.%d.document.", i)
		attrs = append(attrs,
			fmt.Sprintf(`{"key": %q, "value": {"stringValue": %q}}`, p+"id", parts[0]),
			fmt.Sprintf(`{"key": %q, "value": {"stringValue": %q}}`, p+"content", parts[1]),
			fmt.Sprintf(`{"key": %q, "value": {"stringValue": %q}}`, p+"metadata", `{"source": "`+parts[0]+`-doc"}`))
		if len(parts) > 2 {
			attrs = append(attrs, fmt.Sprintf(`{"key": %q, "value": {"doubleValue": %s}}`, p+"score", parts[2]))
		}
	}
	return fmt.Sprintf(`{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "s%d", "startTimeUnixNano": "%d000000000", "attributes": [%s]}]}]}]}`,
		start, start, strings.Join(attrs, ", "))
}

// The spans of a trace export become the fixtures of a production side:
// one per draft and per known case, from the latest span asked in the
// case's text, which the judge reads and reports for the drafts.
func TestProductionSide(t *testing.T) {
	golden := `{"kbScope": "kb", "cases": [{"caseId": "disk", "scenario": "chat", "query": "Disk full?", "expectedSources": ["disk-doc"]}]}`
	g, err := contract.ParseGolden("golden.json", []byte(golden))
	if err != nil {
		t.Fatal(err)
	}
	log := strings.Join([]string{
		otlpSpan("vpn down", 1700000000, "old:stale:0.1"),
		otlpSpan("vpn down", 1700000300, "vpn:restart the tunnel:0.9", "net:check the route"),
		otlpSpan("VPN down!", 1700000900, "other:a later span in another form"),
		otlpSpan("disk full", 1700000100, "disk:du -xh"),
		otlpSpan("nothing found", 1700000200),
	}, "\n")
	l, err := querylog.Read("traces.jsonl", []byte(log), querylog.Auto)
	if err != nil {
		t.Fatal(err)
	}
	r := Draft(l, Options{Existing: g})
	if len(r.Drafts) != 2 || len(r.Known) != 1 {
		t.Fatalf("drafts %d, known %d; want 2, 1", len(r.Drafts), len(r.Known))
	}
	p, err := ProductionSide(r, "kb", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Fixtures) != 3 {
		t.Fatalf("%d fixtures, want 3", len(p.Fixtures))
	}
	var vpn string
	for _, q := range r.Drafts {
		if q.Query == "vpn down" {
			vpn = q.CaseID
		}
	}
	for _, f := range p.Fixtures {
		if f.CaseID != vpn {
			continue
		}
		want := `{
  "fixtureVersion": 1,
  "caseId": "` + vpn + `",
  "query": "vpn down",
  "retrievedAt": "2023-11-14T22:18:20Z",
  "searchMode": "",
  "kbScope": "kb",
  "pipeline": {
    "name": "production",
    "version": "",
    "store": "",
    "embedder": "",
    "dim": 0,
    "capabilities": []
  },
  "lookupResult": {
    "found": true,
    "evidenceBlocks": [
      {
        "rank": 1,
        "docId": "vpn",
        "source": "vpn-doc",
        "excerpt": "restart the tunnel",
        "fusedScore": 0.9
      },
      {
        "rank": 2,
        "docId": "net",
        "source": "net-doc",
        "excerpt": "check the route"
      }
    ]
  }
}
`
		if string(f.Data) != want {
			t.Errorf("fixture of vpn down\n%s\nwant\n%s", f.Data, want)
		}
	}
	if want := `"started": "2023-11-14T22:15:00Z",`; !strings.Contains(string(p.Manifest), want) {
		t.Errorf("manifest lacks %s:\n%s", want, p.Manifest)
	}

	// Written and judged: the drafts are drafts with the production
	// blocks, the known case is judged on its fixture.
	dir := filepath.Join(t.TempDir(), "fixtures-production")
	if err := WriteProduction(dir, p); err != nil {
		t.Fatal(err)
	}
	merged, err := Merge("golden.json", []byte(golden), r.Drafts)
	if err != nil {
		t.Fatal(err)
	}
	mg, err := contract.ParseGolden("golden.json", merged)
	if err != nil {
		t.Fatal(err)
	}
	res, err := judge.Run(mg, dir, judge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %v", res.Warnings)
	}
	for _, c := range res.Cases {
		switch c.CaseID {
		case "disk":
			if c.Status != judge.StatusPass {
				t.Errorf("disk: %s %v, want pass on the production block", c.Status, c.Checks)
			}
		case vpn:
			if c.Status != judge.StatusDraft || len(c.TopCandidates) != 2 || c.TopCandidates[0].Source != "vpn-doc" || c.Reason != nil {
				t.Errorf("vpn down: %s %+v %v, want a draft with the two production blocks", c.Status, c.TopCandidates, c.Reason)
			}
		default:
			if c.Status != judge.StatusDraft || len(c.TopCandidates) != 0 || c.Reason != nil {
				t.Errorf("%s: %s %+v, want a draft without blocks", c.CaseID, c.Status, c.TopCandidates)
			}
		}
	}

	// Written again, the directory is replaced whole; a directory of
	// other files is refused, untouched.
	if err := WriteProduction(dir, p); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("beside the directory: %v, want nothing left", entries)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "x.json"), []byte("{}"), 0o644)
	if err := WriteProduction(other, p); err == nil || !strings.Contains(err.Error(), "did not write") {
		t.Errorf("another directory: %v, want it refused", err)
	}
	if _, err := os.Stat(filepath.Join(other, contract.ManifestName)); err == nil {
		t.Error("the refused directory was written to")
	}
}

// A log of another format makes no production fixture.
func TestProductionSideWithoutSpans(t *testing.T) {
	p, err := ProductionSide(draftLog(t, "vpn down\n", Options{}), "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Fixtures) != 0 {
		t.Errorf("%d fixtures from a text log", len(p.Fixtures))
	}
}
