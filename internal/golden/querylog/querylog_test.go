package querylog

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

func fp(f float64) *float64 { return &f }

// read reads data as format and fails the test on an error.
func read(t *testing.T, name, data, format string) *Log {
	t.Helper()
	l, err := Read(name, []byte(data), format)
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return l
}

// problemsOf reads data as format and returns its problems, one string
// each, failing the test when there is none or the error is no diag.List.
func problemsOf(t *testing.T, name, data, format string) []string {
	t.Helper()
	l, err := Read(name, []byte(data), format)
	if err == nil {
		t.Fatalf("Read(%s) = %d records, want problems", name, len(l.Records))
	}
	var list diag.List
	if !errors.As(err, &list) {
		t.Fatalf("Read(%s) error %T %v, want a diag.List", name, err, err)
	}
	var out []string
	for _, e := range list {
		out = append(out, e.Error())
	}
	return out
}

func checkRecords(t *testing.T, got []Record, want []Record) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records\n%+v\nwant\n%+v", got, want)
	}
}

func TestReadText(t *testing.T) {
	l := read(t, "q.txt", "\uFEFF连接池满了怎么办\r\n\n   \n  how do I reset my password?  \nvpn down", Auto)
	if l.Format != Text {
		t.Errorf("format %s, want text", l.Format)
	}
	checkRecords(t, l.Records, []Record{
		{Query: "连接池满了怎么办", Count: 1, Line: 1},
		{Query: "how do I reset my password?", Count: 1, Line: 4},
		{Query: "vpn down", Count: 1, Line: 5},
	})
	got := problemsOf(t, "q.txt", "ok\nbad \xff byte\n\nalso \xfe\n", Text)
	want := []string{"q.txt:2: not valid UTF-8", "q.txt:4: not valid UTF-8"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
	if got := problemsOf(t, "empty.txt", " \n\n", Text); !reflect.DeepEqual(got, []string{"empty.txt: no query in the log"}) {
		t.Errorf("empty log: %q", got)
	}
}

func TestReadJSONL(t *testing.T) {
	data := `{"query": "连接池满了", "count": 3, "tags": ["db", " pool "], "scenario": "chat", "user": "x"}

{"query": "  vpn down ", "count": null, "tags": null, "scenario": ""}
{"query": "disk full", "count": 2.0, "extra": {"nested": [1, 2]}}
`
	l := read(t, "q.jsonl", data, Auto)
	if l.Format != JSONL {
		t.Errorf("format %s, want jsonl", l.Format)
	}
	checkRecords(t, l.Records, []Record{
		{Query: "连接池满了", Count: 3, Tags: []string{"db", "pool"}, Scenario: "chat", Line: 1},
		{Query: "vpn down", Count: 1, Line: 3},
		{Query: "disk full", Count: 2, Line: 4},
	})

	bad := strings.Join([]string{
		`{"query": "a"`,
		`["query", "a"]`,
		`{"count": 2}`,
		`{"query": 7}`,
		`{"query": "  "}`,
		`{"query": "a", "count": 0}`,
		`{"query": "a", "count": 1.5}`,
		`{"query": "a", "count": "3"}`,
		`{"query": "a", "count": 1e400}`,
		`{"query": "a", "tags": "db"}`,
		`{"query": "a", "tags": ["db", 3, ""]}`,
		`{"query": "a", "scenario": 1}`,
		`{"query": "a", "scenario": " "}`,
		"{\"query\": \"\xff\"}",
		`null`,
		`not json, a text line`,
		`{"query": "fine"}`,
	}, "\n")
	got := problemsOf(t, "bad.jsonl", bad, JSONL)
	want := []string{
		`bad.jsonl:1: expected a JSON object, got a broken object (invalid JSON: unexpected end of JSON input)`,
		`bad.jsonl:2: expected a JSON object, got an array`,
		`bad.jsonl:3: field "query": missing required field`,
		`bad.jsonl:4: field "query": expected a string, got 7`,
		`bad.jsonl:5: field "query": must not be blank`,
		`bad.jsonl:6: field "count": must be at least 1, got 0`,
		`bad.jsonl:7: field "count": expected an integer, got 1.5`,
		`bad.jsonl:8: field "count": expected an integer, got "3"`,
		`bad.jsonl:9: field "count": must be at most 2147483647, got 1e400`,
		`bad.jsonl:10: field "tags": expected an array of strings, got "db"`,
		`bad.jsonl:11: field "tags": expected an array of strings, got 3 at index 1`,
		`bad.jsonl:11: field "tags": empty string at index 2`,
		`bad.jsonl:12: field "scenario": expected a string, got 1`,
		`bad.jsonl:13: field "scenario": must not be blank; leave it out or use "" for the default`,
		`bad.jsonl:14: not valid UTF-8`,
		`bad.jsonl:15: expected a JSON object, got null`,
		`bad.jsonl:16: expected a JSON object, got text that is no JSON: "not json, a text line"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReadCSV(t *testing.T) {
	data := "\uFEFFid, Query ,count,tags,Scenario\n" +
		"1,连接池满了,3,db;pool,chat\n" +
		"2,\"how do I, with a comma\",,\"a, b\",\n" +
		"\n" +
		"3,\"two\nlines\",1,,aiops\n"
	l := read(t, "q.csv", data, Auto)
	if l.Format != CSV {
		t.Errorf("format %s, want csv", l.Format)
	}
	checkRecords(t, l.Records, []Record{
		{Query: "连接池满了", Count: 3, Tags: []string{"db", "pool"}, Scenario: "chat", Line: 2},
		{Query: "how do I, with a comma", Count: 1, Tags: []string{"a", "b"}, Line: 3},
		{Query: "two\nlines", Count: 1, Scenario: "aiops", Line: 5},
	})

	for _, tt := range []struct {
		data string
		want []string
	}{
		{"", []string{"x.csv:1: no header row: the first row must name the columns, one of them query"}},
		{"question,count\na,1\n", []string{`x.csv:1: no query column in the header row (it has "question", "count")`}},
		{"query,QUERY\na,b\n", []string{`x.csv:1: two columns named "query" in the header`}},
		{"query,count\n\"a\" b,1\n , 2\nc,x\nd,0\ne,1,extra\nf,99999999999\n", []string{
			`x.csv:2: extraneous or missing " in quoted-field`,
			`x.csv:3: field "query": must not be blank`,
			`x.csv:4: field "count": expected an integer, got "x"`,
			`x.csv:5: field "count": must be at least 1, got 0`,
			`x.csv:6: wrong number of fields`,
			`x.csv:7: field "count": must be at most 2147483647, got 99999999999`,
		}},
		{"query\nok\n\xff\n", []string{"x.csv:3: not valid UTF-8"}},
	} {
		if got := problemsOf(t, "x.csv", tt.data, CSV); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: problems\n%s\nwant\n%s", tt.data, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

// span is one OTLP span, as JSON, with the given attributes.
func span(id string, attrs ...string) string {
	return fmt.Sprintf(`{"traceId": "t1", "spanId": %q, "name": "retrieve", "kind": 1, "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": 1700000000500000000, "attributes": [%s]}`,
		id, strings.Join(attrs, ", "))
}

func attr(key, value string) string { return fmt.Sprintf(`{"key": %q, "value": %s}`, key, value) }
func sv(s string) string            { return fmt.Sprintf(`{"stringValue": %q}`, s) }

func export(spans ...string) string {
	return `{"resourceSpans": [{"resource": {"attributes": [` + attr("service.name", sv("rag-api")) + `]}, "scopeSpans": [{"scope": {"name": "openinference"}, "spans": [` +
		strings.Join(spans, ", ") + `]}]}]}`
}

var retriever = attr("openinference.span.kind", sv("RETRIEVER"))

func TestReadOTLP(t *testing.T) {
	docs := []string{
		retriever, attr("input.value", sv("连接池满了怎么办")),
		attr("retrieval.documents.1.document.id", sv("kb/redis")),
		attr("retrieval.documents.1.document.content", sv("maxmemory")),
		attr("retrieval.documents.1.document.score", `{"doubleValue": 0.25}`),
		attr("retrieval.documents.0.document.id", `{"intValue": "42"}`),
		attr("retrieval.documents.0.document.content", sv("max_connections")),
		attr("retrieval.documents.0.document.score", `{"doubleValue": "0.75"}`),
		attr("retrieval.documents.0.document.metadata", sv(`{"source": "mysql-pool", "title": "Pool", "page": 3}`)),
		attr("retrieval.documents.0.document.rank", sv("ignored")),
		attr("retrieval.documents.x.document.id", sv("ignored")),
	}
	// One document per line, as the collector's file exporter writes, with
	// an LLM span that is no retriever, a metrics line, and the older key
	// instrumentationLibrarySpans.
	data := export(span("s1", docs...), span("s2", attr("openinference.span.kind", sv("LLM")), attr("input.value", sv("not a query")))) + "\n" +
		`{"resourceMetrics": []}` + "\n" +
		`{"resourceSpans": [{"instrumentationLibrarySpans": [{"spans": [` +
		span("s3", attr("openinference.span.kind", sv("retriever")), attr("input.mime_type", sv("application/json")), attr("input.value", sv(`{"query_str": "vpn down"}`))) +
		`]}]}]}` + "\n"
	l := read(t, "traces.json", data, Auto)
	if l.Format != OTLP {
		t.Errorf("format %s, want otlp", l.Format)
	}
	checkRecords(t, l.Records, []Record{
		{Query: "连接池满了怎么办", Count: 1, Line: 1, Span: &Span{TraceID: "t1", SpanID: "s1", Start: 1700000000000000000, End: 1700000000500000000,
			Documents: []Document{
				{ID: "42", Content: "max_connections", HasContent: true, Score: fp(0.75), Source: "mysql-pool", Title: "Pool"},
				{ID: "kb/redis", Content: "maxmemory", HasContent: true, Score: fp(0.25)},
			}}},
		{Query: "vpn down", Count: 1, Line: 3, Span: &Span{TraceID: "t1", SpanID: "s3", Start: 1700000000000000000, End: 1700000000500000000}},
	})

	// One indented document: each span on its own line.
	indented := "{\n  \"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [\n    " +
		span("a", retriever, attr("input.value", sv("one"))) + ",\n    " +
		span("b", retriever, attr("input.value", sv("two"))) + "\n  ]}]}]\n}\n"
	l = read(t, "one.json", indented, OTLP)
	if len(l.Records) != 2 || l.Records[0].Line != 3 || l.Records[1].Line != 4 {
		t.Errorf("indented document: records %+v, want two on lines 3 and 4", l.Records)
	}
}

func TestReadOTLPProblems(t *testing.T) {
	line := func(spans ...string) string { return export(spans...) }
	data := strings.Join([]string{
		line(span("no-input", retriever)),
		line(span("not-string", retriever, attr("input.value", `{"intValue": 3}`))),
		line(span("blank", retriever, attr("input.value", sv("  ")))),
		line(span("json", retriever, attr("input.mime_type", sv("application/json")), attr("input.value", sv(`{"text": "x"}`)))),
		line(span("notjson", retriever, attr("input.mime_type", sv("application/json")), attr("input.value", sv(`vpn`)))),
		line(span("score", retriever, attr("input.value", sv("q")), attr("retrieval.documents.0.document.score", sv("high")))),
		line(span("nan", retriever, attr("input.value", sv("q")), attr("retrieval.documents.0.document.score", `{"doubleValue": "NaN"}`))),
		line(span("meta", retriever, attr("input.value", sv("q")), attr("retrieval.documents.0.document.metadata", sv("source=x")))),
		line(span("content", retriever, attr("input.value", sv("q")), attr("retrieval.documents.0.document.content", `{"boolValue": true}`))),
		`{"resourceSpans": {"scopeSpans": []}}`,
		`{"resourceSpans": [{"scopeSpans": [{"spans": [7, {"attributes": "x"}, {"startTimeUnixNano": "soon", "attributes": [` + retriever + `, ` + attr("input.value", sv("q")) + `]}]}]}]}`,
		`[1]`,
		`{"resourceSpans": [`,
	}, "\n")
	got := problemsOf(t, "t.json", data, OTLP)
	p := "resourceSpans[0].scopeSpans[0].spans[0]"
	want := []string{
		`t.json:1: ` + p + `: attribute "input.value": missing: a RETRIEVER span needs its query in input.value`,
		`t.json:2: ` + p + `: attribute "input.value": expected a stringValue, got {"intValue":3}`,
		`t.json:3: ` + p + `: attribute "input.value": must not be blank`,
		`t.json:4: ` + p + `: attribute "input.value": a JSON object without a string member query, query_str, input, question: "{\"text\": \"x\"}"`,
		`t.json:5: ` + p + `: attribute "input.value": input.mime_type is application/json but the value is not JSON: "vpn"`,
		`t.json:6: ` + p + `: attribute "retrieval.documents.0.document.score": expected a doubleValue or intValue, got {"stringValue":"high"}`,
		`t.json:7: ` + p + `: attribute "retrieval.documents.0.document.score": expected a finite number, got "NaN"`,
		`t.json:8: ` + p + `: attribute "retrieval.documents.0.document.metadata": expected a JSON object in the stringValue, got "source=x"`,
		`t.json:9: ` + p + `: attribute "retrieval.documents.0.document.content": expected a stringValue, got {"boolValue":true}`,
		`t.json:10: resourceSpans: expected an array, got an object`,
		`t.json:11: ` + p + `: expected a span object, got 7`,
		`t.json:11: resourceSpans[0].scopeSpans[0].spans[1]: field "attributes": expected an array, got "x"`,
		`t.json:11: resourceSpans[0].scopeSpans[0].spans[2]: field "startTimeUnixNano": expected a count of nanoseconds, got "soon"`,
		`t.json:12: expected an OTLP JSON object (an export of resourceSpans), got an array`,
		`t.json:13: invalid JSON: unexpected end of input`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := problemsOf(t, "t.json", export(span("llm", attr("openinference.span.kind", sv("LLM")))), OTLP); !reflect.DeepEqual(got,
		[]string{"t.json: no retriever span with a query in the log (spans whose openinference.span.kind is RETRIEVER)"}) {
		t.Errorf("no retriever span: %q", got)
	}
}

// Problems past MaxProblems are counted, not listed.
func TestReadManyProblems(t *testing.T) {
	got := problemsOf(t, "many.jsonl", strings.Repeat("{}\n", MaxProblems+7), JSONL)
	if len(got) != MaxProblems+1 {
		t.Fatalf("%d problems listed, want %d", len(got), MaxProblems+1)
	}
	if last := got[len(got)-1]; last != "many.jsonl: 7 more problems not listed" {
		t.Errorf("last problem %q", last)
	}
}

func TestDetect(t *testing.T) {
	for _, tt := range []struct{ name, data, want string }{
		{"q.csv", `{"query": "x"}`, CSV},
		{"q.txt", `{"query": "x"}`, Text},
		{"q.log", "  \n{\"query\": \"x\"}", JSONL},
		{"q.log", "\uFEFF  {\"query\": \"x\"}", JSONL},
		{"traces.json", `{"resourceSpans": []}`, OTLP},
		{"traces.jsonl", `{"other": {"resourceSpans": 1}, "resourceSpans": []}`, OTLP},
		{"q", `{"query": "x"} {"resourceSpans": []}`, JSONL},
		{"q", `{"query": "x", "resourceSp`, JSONL},
		{"q", "how do I {x}", Text},
		{"q", "", Text},
	} {
		if got := Detect(tt.name, []byte(tt.data)); got != tt.want {
			t.Errorf("Detect(%s, %q) = %s, want %s", tt.name, tt.data, got, tt.want)
		}
	}
	if _, err := Read("x", []byte("q"), "xml"); err == nil || !strings.Contains(err.Error(), `unknown query log format "xml"`) {
		t.Errorf("unknown format: %v", err)
	}
}
