package querylog

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// checkRead reads data as format and checks what any log gives: problems
// that are a diag.List of lines within the file, in line order but for
// the count of those left out, or records whose queries are trimmed and
// not blank, counts at least 1, tags not blank and lines within the file.
func checkRead(t *testing.T, data []byte, format string) *Log {
	l, err := Read("fuzz", data, format)
	lines := bytes.Count(data, []byte("\n")) + 1
	if err != nil {
		if l != nil {
			t.Fatalf("Read returned both a log and an error: %v", err)
		}
		var list diag.List
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error %T %v, want a non-empty diag.List", err, err)
		}
		if len(list) > MaxProblems+1 {
			t.Fatalf("%d problems listed, more than %d", len(list), MaxProblems+1)
		}
		for _, e := range list {
			if e.File != "fuzz" || e.Msg == "" || e.Line < 0 || e.Line > lines {
				t.Fatalf("problem %#v: want file fuzz, a message and a line in [0, %d]", e, lines)
			}
			if !utf8.ValidString(e.Error()) {
				t.Fatalf("problem %q is not valid UTF-8", e.Error())
			}
		}
		return nil
	}
	if len(l.Records) == 0 {
		t.Fatal("a log without records and without an error")
	}
	if l.Format != format {
		t.Fatalf("format %s, want %s", l.Format, format)
	}
	for _, r := range l.Records {
		if r.Query == "" || r.Query != strings.TrimSpace(r.Query) || !utf8.ValidString(r.Query) {
			t.Fatalf("query %q: want it trimmed, not blank and UTF-8", r.Query)
		}
		if r.Count < 1 || r.Count > maxCount {
			t.Fatalf("query %q: count %d", r.Query, r.Count)
		}
		if r.Line < 1 || r.Line > lines {
			t.Fatalf("query %q: line %d of %d", r.Query, r.Line, lines)
		}
		for _, tag := range r.Tags {
			if tag == "" || tag != strings.TrimSpace(tag) {
				t.Fatalf("query %q: tag %q", r.Query, tag)
			}
		}
		if r.Scenario != strings.TrimSpace(r.Scenario) {
			t.Fatalf("query %q: scenario %q", r.Query, r.Scenario)
		}
		if (r.Span != nil) != (format == OTLP) {
			t.Fatalf("query %q: span %v in a %s log", r.Query, r.Span, format)
		}
		if r.Span != nil {
			for _, d := range r.Span.Documents {
				if d.Score != nil && (math.IsNaN(*d.Score) || math.IsInf(*d.Score, 0)) {
					t.Fatalf("query %q: score %v", r.Query, *d.Score)
				}
			}
		}
	}
	return l
}

func FuzzReadText(f *testing.F) {
	for _, s := range []string{"a\nb\r\n\n c \n", "\uFEFF连接池\n", "\xff\n", "", " \n\t\n", "x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := checkRead(t, data, Text)
		// Every non-blank valid line is a record, in order.
		if l != nil {
			var want []string
			for _, line := range strings.Split(strings.TrimPrefix(string(data), "\uFEFF"), "\n") {
				if s := strings.TrimSpace(strings.TrimSuffix(line, "\r")); s != "" {
					want = append(want, s)
				}
			}
			if len(want) != len(l.Records) {
				t.Fatalf("%d records, want %d", len(l.Records), len(want))
			}
			for i, r := range l.Records {
				if r.Query != want[i] {
					t.Fatalf("record %d: %q, want %q", i, r.Query, want[i])
				}
			}
		}
	})
}

func FuzzReadJSONL(f *testing.F) {
	for _, s := range []string{
		`{"query": "a", "count": 2, "tags": ["x"], "scenario": "chat"}` + "\n" + `{"query": "b"}`,
		`{"query": "a", "count": 1e400}`, `{"query": ""}`, `[1]`, `{"query": "a"`, "{\"query\": \"\xff\"}",
		`{"query": "a", "tags": ["", 1]}`, `{"query": "a", "count": -0.0}`, `null`, "\uFEFF{\"query\":\"x\"}\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkRead(t, data, JSONL) })
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"query,count,tags,scenario\na,2,x;y,chat\n\"b,c\",,,\n", "query\n\"a\nb\"\n", "q\na\n", "",
		"query,count\na,x\n", "query\n\"a\n", "query,query\na,b\n", "\uFEFFQuery\na\n", "query\n\xff\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkRead(t, data, CSV) })
}

func FuzzReadOTLP(f *testing.F) {
	f.Add([]byte(export(span("s1", retriever, attr("input.value", sv("q")),
		attr("retrieval.documents.0.document.id", sv("d")), attr("retrieval.documents.0.document.score", `{"doubleValue": 0.5}`),
		attr("retrieval.documents.0.document.metadata", sv(`{"source": "s"}`))))))
	f.Add([]byte(export(span("s1", retriever, attr("input.mime_type", sv("application/json")), attr("input.value", sv(`{"query": "q"}`)))) + "\n" + `{"resourceMetrics": []}`))
	for _, s := range []string{`{"resourceSpans": [{"scopeSpans": [{"spans": [1, {}]}]}]}`, `{"resourceSpans": null}`, `[`, `{"resourceSpans": [`, "{\"a\": \"\xff\"}", `1 2`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkRead(t, data, OTLP) })
}

// Auto reads as Detect says, and never panics.
func FuzzReadAuto(f *testing.F) {
	f.Add("q.csv", []byte("query\na\n"))
	f.Add("q", []byte(`{"query": "a"}`))
	f.Add("q.json", []byte(`{"resourceSpans": []}`))
	f.Add("q.txt", []byte("a\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		l, err := Read(name, data, Auto)
		if err == nil && l.Format != Detect(name, data) {
			t.Fatalf("read as %s, Detect says %s", l.Format, Detect(name, data))
		}
	})
}
