package mapped

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"golang.org/x/net/http/httpguts"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
)

// SearchModes are the search modes a config declares (Config.SearchMode,
// written to pipeline.searchMode).
var SearchModes = contract.PipelineSearchModes

// Capabilities a mapped pipeline can declare: the parts of a lookup result
// a response mapping and the score rules can give. The others (contextPack,
// trace, fallback, rerank) are the builtin pipeline's own steps.
var Capabilities = []string{contract.CapEvidenceStatus, contract.CapQualityScore, contract.CapBreadcrumb}

// Score kinds.
const (
	Similarity = "similarity" // higher is better
	Distance   = "distance"   // lower is better
)

// Quality conversions (Score.Quality): how a block's score becomes its
// qualityScore, clamped to [0, 1] (see the package documentation).
const (
	QualityIdentity = "identity" // similarity s: s
	QualityTwoSM1   = "2s-1"     // similarity s on the (1 + cos)/2 scale: 2s − 1, the cosine
	QualityOneMinus = "1-d"      // cosine distance d: 1 − d, the cosine
	QualityHalf     = "1-d/2"    // d in [0, 2] (squared L2 of unit vectors, cosine distance): 1 − d/2
	QualityL2       = "1-d^2/2"  // L2 distance of unit vectors: 1 − d²/2, the cosine (the builtin rule)
	QualityMinMax   = "minmax"   // min-max over the result list
	QualityNone     = "none"     // no qualityScore
)

var (
	similarityQualities = []string{QualityIdentity, QualityTwoSM1, QualityMinMax, QualityNone}
	distanceQualities   = []string{QualityOneMinus, QualityHalf, QualityL2, QualityMinMax, QualityNone}
)

// The fields of the request input object, usable as {name} placeholders
// in URLs and as .name in jq programs.
var inputFields = []string{"query", "topK", "kbScope", "searchMode", "vector"}

// reservedNames may not name a setup step.
var reservedNames = append([]string{"request", "ENV", "__loc__"}, inputFields...)

// DefaultName is the pipeline name of fixtures written by a mapped
// pipeline (pipeline.name). The config's name and version become
// pipeline.version.
const DefaultName = "mapped"

// MaxConfigBytes bounds a config file.
const MaxConfigBytes = 1 << 20

// Config is a parsed, checked pipeline config (docs/mapped-pipeline.md).
// Load returns it, and New builds a pipeline from it.
type Config struct {
	// File is the path it was read from, for messages.
	File         string
	Name         string
	Version      string
	Store        string // "" means the request URL's template, without its query
	SearchMode   string
	Capabilities []string // in contract.Capabilities order
	EmbedQuery   bool
	TopK         int

	Headers []header
	Setup   []*step
	Request *call
	Blocks  *program

	Score Score
	// Thresholds are the declared thresholds. ThresholdsFromEmbedder
	// says "use the embedder's calibrated ones", which New resolves.
	// Neither means builtin.UncalibratedThresholds, with a warning.
	Thresholds             *builtin.Thresholds
	ThresholdsFromEmbedder bool
}

// Score says what a block's score is and how it becomes qualityScore.
type Score struct {
	Kind    string // Similarity or Distance, "" when the config has no score section
	Quality string // one of the Quality constants
	// Min and Max are the declared range (nil: unbounded or not said).
	Min, Max *float64
	// Label is written to each block's scoreLabel ("" none).
	Label string
}

type header struct {
	name  string
	value *template
}

type param struct {
	name string
	prog *program
}

// call is one HTTP exchange: the main request or a setup step's.
type call struct {
	field        string // "request" or "setup[i]"
	Method       string
	URL          *template
	Params       []param
	Headers      []header
	Body         *program // nil: no body
	ErrorIf      *program // nil: only the status decides
	ErrorMessage *program
}

// where names the call in messages: method and URL template, no secrets,
// no query string.
func (c *call) where() string {
	return c.Method + " " + c.URL.shown()
}

// shown is the URL template as messages and pipeline.store show it:
// without its query string, nor the user info of a URL written out in the
// config (https://user:password@host/…), which net/http sends as basic
// authentication.
func (t *template) shown() string {
	u := t.src
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	for _, scheme := range []string{"http://", "https://"} {
		if rest, ok := strings.CutPrefix(u, scheme); ok {
			host, path := rest, ""
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				host, path = rest[:i], rest[i:]
			}
			if i := strings.LastIndexByte(host, '@'); i >= 0 {
				u = scheme + host[i+1:] + path
			}
		}
	}
	return u
}

// step is a setup step: a call made once, before the first lookup, whose
// value is bound to Name.
type step struct {
	Name string
	call
	Value *program
	// inURL is the field of the first URL holding {Name}, "" for none.
	inURL string
}

// check refuses a value the step's name cannot stand for. Null is what a
// mapping gives for a field the answer lacks. An object or an array has no
// text to put in a URL that holds {Name}.
func (s *step) check(v any) error {
	if v == nil {
		return fmt.Errorf("%s: the value of %s is null (a field the answer lacks?), want a string, number or boolean", s.Value.field, s.Name)
	}
	if _, ok := scalarString(v); !ok && s.inURL != "" {
		kind := "an object"
		if _, ok := v.([]any); ok {
			kind = "an array"
		}
		return fmt.Errorf("%s: the value of %s is %s, want a string, number or boolean for {%s} in %s", s.Value.field, s.Name, kind, s.Name, s.inURL)
	}
	return nil
}

// uses reports whether t holds the placeholder {name}.
func (t *template) uses(name string) bool {
	for _, p := range t.parts {
		if p.kind == placeholder && p.text == name {
			return true
		}
	}
	return false
}

// Load reads and checks the config file at path (YAML, or JSON, which is
// YAML too). Every problem is a *diag.Error naming the file, the line and
// the field. jq programs are compiled here, so a syntax error is reported
// before anything runs.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("pipeline config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("pipeline config %s: %w", path, err)
	}
	if len(data) > MaxConfigBytes {
		return nil, &diag.Error{File: path, Msg: fmt.Sprintf("larger than %d bytes", MaxConfigBytes)}
	}
	return Parse(path, data)
}

// Parse is Load for data already read. name is the file name for messages.
func Parse(name string, data []byte) (*Config, error) {
	r := &reader{file: name}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(name, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &diag.Error{File: name, Msg: "empty config"}
	}
	if len(doc.Content) != 1 {
		return nil, &diag.Error{File: name, Msg: "more than one YAML document"}
	}
	root := doc.Content[0]
	if isNull(root) { // "---" alone: yaml.v3 puts its null on the line after
		return nil, &diag.Error{File: name, Msg: "empty config"}
	}
	m, _, err := r.mapping(root, "", []string{"name", "version", "store", "searchMode", "capabilities",
		"embedQuery", "topK", "headers", "setup", "request", "response", "score", "thresholds"})
	if err != nil {
		return nil, err
	}
	c := &Config{File: name, TopK: builtin.DefaultTopK}
	need := func(key string) (*yaml.Node, error) {
		n, ok := m[key]
		if !ok || isNull(n) {
			return nil, r.errf(root, key, "required")
		}
		return n, nil
	}

	n, err := need("name")
	if err != nil {
		return nil, err
	}
	if c.Name, err = r.str(n, "name", false); err != nil {
		return nil, err
	}
	if strings.TrimSpace(c.Name) == "" || strings.ContainsAny(c.Name, "\n\r\t") {
		return nil, r.errf(n, "name", "want a one-line name")
	}
	if n, ok := m["version"]; ok && !isNull(n) {
		if c.Version, err = r.str(n, "version", true); err != nil {
			return nil, err
		}
	}
	if n, ok := m["store"]; ok && !isNull(n) {
		if c.Store, err = r.str(n, "store", false); err != nil {
			return nil, err
		}
	}
	if n, err = need("searchMode"); err != nil {
		return nil, err
	}
	if c.SearchMode, err = r.str(n, "searchMode", false); err != nil {
		return nil, err
	}
	if !contains(SearchModes, c.SearchMode) {
		return nil, r.errf(n, "searchMode", "%q, want one of %s (what the service itself runs)", c.SearchMode, strings.Join(SearchModes, ", "))
	}
	if n, ok := m["embedQuery"]; ok && !isNull(n) {
		if c.EmbedQuery, err = r.boolean(n, "embedQuery"); err != nil {
			return nil, err
		}
	}
	if n, ok := m["topK"]; ok && !isNull(n) {
		if c.TopK, err = r.integer(n, "topK"); err != nil {
			return nil, err
		}
		if c.TopK < 1 || c.TopK > builtin.MaxTopK {
			return nil, r.errf(n, "topK", "%d, want 1..%d", c.TopK, builtin.MaxTopK)
		}
	}
	if n, ok := m["headers"]; ok && !isNull(n) {
		if c.Headers, err = r.headers(n, "headers"); err != nil {
			return nil, err
		}
	}

	// Setup steps: each may use the values of the steps before it.
	var names []string
	if n, ok := m["setup"]; ok && !isNull(n) {
		if n.Kind != yaml.SequenceNode {
			return nil, r.errf(n, "setup", "want a list of steps, got %s", kindName(n))
		}
		for i, sn := range n.Content {
			s, err := r.step(sn, fmt.Sprintf("setup[%d]", i), names)
			if err != nil {
				return nil, err
			}
			c.Setup = append(c.Setup, s)
			names = append(names, s.Name)
		}
	}
	vars := append(append([]string(nil), names...), "request")
	if n, err = need("request"); err != nil {
		return nil, err
	}
	if c.Request, err = r.call(n, "request", names, true); err != nil {
		return nil, err
	}
	urls := []*template{c.Request.URL}
	for i := len(c.Setup) - 1; i >= 0; i-- {
		// A step's value can be in the URLs of the steps after it.
		for _, u := range urls {
			if u.uses(c.Setup[i].Name) {
				c.Setup[i].inURL = u.field
				break
			}
		}
		urls = append([]*template{c.Setup[i].URL}, urls...)
	}
	if n, err = need("response"); err != nil {
		return nil, err
	}
	rm, _, err := r.mapping(n, "response", []string{"errorIf", "errorMessage", "blocks"})
	if err != nil {
		return nil, err
	}
	if err := r.responseChecks(rm, "response", c.Request, vars); err != nil {
		return nil, err
	}
	bn, ok := rm["blocks"]
	if !ok || isNull(bn) {
		return nil, r.errf(n, "response.blocks", "required: the jq program mapping the response to evidence blocks")
	}
	if c.Blocks, err = r.program(bn, "response.blocks", vars); err != nil {
		return nil, err
	}

	if n, ok := m["score"]; ok && !isNull(n) {
		if c.Score, err = r.score(n); err != nil {
			return nil, err
		}
	} else {
		c.Score.Quality = QualityNone
	}
	if n, ok := m["thresholds"]; ok && !isNull(n) {
		if err := r.thresholds(n, c); err != nil {
			return nil, err
		}
	}

	n, ok = m["capabilities"]
	if !ok || isNull(n) {
		return nil, r.errf(root, "capabilities", "required: list what the results contain (%s), [] for none of them", strings.Join(Capabilities, ", "))
	}
	caps, nodes, err := r.strings(n, "capabilities")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, cp := range caps {
		field := fmt.Sprintf("capabilities[%d]", i)
		switch {
		case contains(Capabilities, cp):
		case contains(contract.Capabilities, cp):
			return nil, r.errf(nodes[i], field, "a mapped pipeline cannot produce %s (it is a step of the builtin pipeline); it can declare %s", cp, strings.Join(Capabilities, ", "))
		default:
			return nil, r.errf(nodes[i], field, "unknown capability %q, want one of %s", cp, strings.Join(Capabilities, ", "))
		}
		if seen[cp] {
			return nil, r.errf(nodes[i], field, "%s listed twice", cp)
		}
		seen[cp] = true
		if (cp == contract.CapQualityScore || cp == contract.CapEvidenceStatus) && c.Score.Quality == QualityNone {
			return nil, r.errf(nodes[i], field, "%s needs a score: declare score.kind and score.quality", cp)
		}
	}
	for _, cp := range contract.Capabilities {
		if seen[cp] {
			c.Capabilities = append(c.Capabilities, cp)
		}
	}
	if c.Capabilities == nil {
		c.Capabilities = []string{}
	}
	return c, nil
}

// yamlError is a YAML syntax error as a *diag.Error: the parser's
// "yaml: line N: message" becomes file:N: message, as every other error.
func yamlError(file string, err error) *diag.Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, m, ok := strings.Cut(rest, ": "); ok {
			if l, err := strconv.Atoi(n); err == nil && l > 0 {
				line, msg = l, m
			}
		}
	}
	return &diag.Error{File: file, Line: line, Msg: msg}
}

// headers reads a mapping of header names to templates.
func (r *reader) headers(n *yaml.Node, field string) ([]header, error) {
	_, order, err := r.mapping(n, field, nil)
	if err != nil {
		return nil, err
	}
	var out []header
	seen := map[string]bool{}
	for _, e := range order {
		sub := join(field, e.key)
		if !httpguts.ValidHeaderFieldName(e.key) {
			return nil, r.errf(e.keyN, sub, "not a valid HTTP header name")
		}
		if lookuphttp.ClientSetHeader(e.key) {
			return nil, r.errf(e.keyN, sub, "set by the client, not by the config")
		}
		if seen[strings.ToLower(e.key)] {
			return nil, r.errf(e.keyN, sub, "defined twice (header names ignore case)")
		}
		seen[strings.ToLower(e.key)] = true
		t, err := r.template(e.value, sub, nil)
		if err != nil {
			return nil, err
		}
		t.header = true
		if strings.ContainsAny(t.src, "\r\n") {
			return nil, r.errf(e.value, sub, "a header value cannot span lines")
		}
		out = append(out, header{name: e.key, value: t})
	}
	return out, nil
}

// template reads a string with ${ENV} references (and, when placeholders
// is not nil, {name} placeholders).
func (r *reader) template(n *yaml.Node, field string, placeholders []string) (*template, error) {
	s, err := r.str(n, field, true)
	if err != nil {
		return nil, err
	}
	parts, err := parseTemplate(s, placeholders)
	if err != nil {
		return nil, r.errf(n, field, "%v", err)
	}
	return &template{src: s, parts: parts, field: field, line: n.Line}, nil
}

var methods = []string{"GET", "POST", "PUT", "PATCH"}

// call reads {method, url, params, headers, body}. names are the setup
// values it may use.
func (r *reader) call(n *yaml.Node, field string, names []string, isRequest bool) (*call, error) {
	m, _, err := r.mapping(n, field, []string{"method", "url", "params", "headers", "body"})
	if err != nil {
		return nil, err
	}
	c := &call{field: field}
	placeholders := append([]string{}, names...) // not nil: braces are placeholders in URLs
	vars := append([]string(nil), names...)
	if isRequest {
		placeholders = append(placeholders, inputFields[:4]...) // not the vector
	}
	un, ok := m["url"]
	if !ok || isNull(un) {
		return nil, r.errf(n, join(field, "url"), "required")
	}
	if c.URL, err = r.template(un, join(field, "url"), placeholders); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(c.URL.src, "${") && !strings.HasPrefix(c.URL.src, "http://") && !strings.HasPrefix(c.URL.src, "https://") {
		return nil, r.errf(un, join(field, "url"), "want an http:// or https:// URL, or one starting with ${VAR}")
	}
	if pn, ok := m["params"]; ok && !isNull(pn) {
		_, order, err := r.mapping(pn, join(field, "params"), nil)
		if err != nil {
			return nil, err
		}
		for _, e := range order {
			p, err := r.program(e.value, join(join(field, "params"), e.key), vars)
			if err != nil {
				return nil, err
			}
			c.Params = append(c.Params, param{name: e.key, prog: p})
		}
	}
	if hn, ok := m["headers"]; ok && !isNull(hn) {
		if c.Headers, err = r.headers(hn, join(field, "headers")); err != nil {
			return nil, err
		}
	}
	if bn, ok := m["body"]; ok && !isNull(bn) {
		if c.Body, err = r.program(bn, join(field, "body"), vars); err != nil {
			return nil, err
		}
	}
	c.Method = "GET"
	if c.Body != nil {
		c.Method = "POST"
	}
	if mn, ok := m["method"]; ok && !isNull(mn) {
		s, err := r.str(mn, join(field, "method"), false)
		if err != nil {
			return nil, err
		}
		s = strings.ToUpper(s)
		if !contains(methods, s) {
			return nil, r.errf(mn, join(field, "method"), "%q, want one of %s", s, strings.Join(methods, ", "))
		}
		if s == "GET" && c.Body != nil {
			return nil, r.errf(mn, join(field, "method"), "a GET request has no body")
		}
		c.Method = s
	}
	return c, nil
}

// responseChecks reads errorIf and errorMessage into c.
func (r *reader) responseChecks(m map[string]*yaml.Node, field string, c *call, vars []string) error {
	var err error
	if n, ok := m["errorIf"]; ok && !isNull(n) {
		if c.ErrorIf, err = r.program(n, join(field, "errorIf"), vars); err != nil {
			return err
		}
	}
	if n, ok := m["errorMessage"]; ok && !isNull(n) {
		if c.ErrorMessage, err = r.program(n, join(field, "errorMessage"), vars); err != nil {
			return err
		}
	}
	return nil
}

// step reads a setup step: {name, request, response: {errorIf,
// errorMessage, value}}.
func (r *reader) step(n *yaml.Node, field string, before []string) (*step, error) {
	m, _, err := r.mapping(n, field, []string{"name", "request", "response"})
	if err != nil {
		return nil, err
	}
	nn, ok := m["name"]
	if !ok || isNull(nn) {
		return nil, r.errf(n, join(field, "name"), "required: the name its value is bound to ($name in jq, {name} in URLs)")
	}
	name, err := r.str(nn, join(field, "name"), false)
	if err != nil {
		return nil, err
	}
	switch {
	case !validIdent(name):
		return nil, r.errf(nn, join(field, "name"), "%q, want a name of letters, digits and _ (not starting with a digit)", name)
	case contains(reservedNames, name):
		return nil, r.errf(nn, join(field, "name"), "%q is reserved (%s)", name, strings.Join(reservedNames, ", "))
	case contains(before, name):
		return nil, r.errf(nn, join(field, "name"), "%q is the name of an earlier step", name)
	}
	rn, ok := m["request"]
	if !ok || isNull(rn) {
		return nil, r.errf(n, join(field, "request"), "required")
	}
	c, err := r.call(rn, join(field, "request"), before, false)
	if err != nil {
		return nil, err
	}
	c.field = field
	s := &step{Name: name, call: *c}
	resp, ok := m["response"]
	if !ok || isNull(resp) {
		return nil, r.errf(n, join(field, "response"), "required: response.value, the jq program whose result is bound to %s", name)
	}
	rm, _, err := r.mapping(resp, join(field, "response"), []string{"errorIf", "errorMessage", "value"})
	if err != nil {
		return nil, err
	}
	if err := r.responseChecks(rm, join(field, "response"), &s.call, before); err != nil {
		return nil, err
	}
	vn, ok := rm["value"]
	if !ok || isNull(vn) {
		return nil, r.errf(resp, join(field, "response.value"), "required: the jq program whose result is bound to %s", name)
	}
	if s.Value, err = r.program(vn, join(field, "response.value"), before); err != nil {
		return nil, err
	}
	return s, nil
}

// score reads {kind, quality, range, label}.
func (r *reader) score(n *yaml.Node) (Score, error) {
	var s Score
	m, _, err := r.mapping(n, "score", []string{"kind", "quality", "range", "label"})
	if err != nil {
		return s, err
	}
	kn, ok := m["kind"]
	if !ok || isNull(kn) {
		return s, r.errf(n, "score.kind", "required: %s or %s", Similarity, Distance)
	}
	if s.Kind, err = r.str(kn, "score.kind", false); err != nil {
		return s, err
	}
	var allowed []string
	switch s.Kind {
	case Similarity:
		allowed = similarityQualities
	case Distance:
		allowed = distanceQualities
	default:
		return s, r.errf(kn, "score.kind", "%q, want %s (higher is better) or %s (lower is better)", s.Kind, Similarity, Distance)
	}
	qn, ok := m["quality"]
	if !ok || isNull(qn) {
		return s, r.errf(n, "score.quality", "required: for a %s one of %s", s.Kind, strings.Join(allowed, ", "))
	}
	q, err := r.str(qn, "score.quality", true)
	if err != nil {
		return s, err
	}
	s.Quality = strings.Join(strings.Fields(q), "")
	if !contains(allowed, s.Quality) {
		return s, r.errf(qn, "score.quality", "%q is not a conversion of a %s; want one of %s", q, s.Kind, strings.Join(allowed, ", "))
	}
	if rn, ok := m["range"]; ok && !isNull(rn) {
		if rn.Kind != yaml.SequenceNode || len(rn.Content) != 2 {
			return s, r.errf(rn, "score.range", "want [min, max] (max null when unbounded)")
		}
		for i, p := range []**float64{&s.Min, &s.Max} {
			if isNull(rn.Content[i]) {
				continue
			}
			v, err := r.number(rn.Content[i], fmt.Sprintf("score.range[%d]", i))
			if err != nil {
				return s, err
			}
			*p = &v
		}
		if s.Min != nil && s.Max != nil && *s.Min >= *s.Max {
			return s, r.errf(rn, "score.range", "min %g is not below max %g", *s.Min, *s.Max)
		}
	}
	if ln, ok := m["label"]; ok && !isNull(ln) {
		if s.Label, err = r.str(ln, "score.label", false); err != nil {
			return s, err
		}
	}
	return s, nil
}

// thresholds reads "embedder" or {lowQuality, minQuality, levels: {high,
// medium}}.
func (r *reader) thresholds(n *yaml.Node, c *Config) error {
	if c.Score.Quality == QualityNone {
		return r.errf(n, "thresholds", "thresholds need a score: declare score.kind and score.quality")
	}
	if n.Kind == yaml.ScalarNode {
		s, err := r.str(n, "thresholds", false)
		if err != nil {
			return err
		}
		if s != "embedder" {
			return r.errf(n, "thresholds", "%q, want \"embedder\" or a mapping of lowQuality, minQuality and levels", s)
		}
		if !c.EmbedQuery {
			return r.errf(n, "thresholds", "\"embedder\" takes the thresholds of the embedder, which needs embedQuery: true")
		}
		c.ThresholdsFromEmbedder = true
		return nil
	}
	m, _, err := r.mapping(n, "thresholds", []string{"lowQuality", "minQuality", "levels"})
	if err != nil {
		return err
	}
	t := &builtin.Thresholds{}
	read := func(m map[string]*yaml.Node, parent *yaml.Node, field, key string, p *float64) error {
		v, ok := m[key]
		if !ok || isNull(v) {
			return r.errf(parent, join(field, key), "required")
		}
		x, err := r.number(v, join(field, key))
		if err != nil {
			return err
		}
		if x < 0 || x > 1 {
			return r.errf(v, join(field, key), "%g, want 0..1 (a qualityScore)", x)
		}
		*p = x
		return nil
	}
	if err := read(m, n, "thresholds", "lowQuality", &t.LowQuality); err != nil {
		return err
	}
	if err := read(m, n, "thresholds", "minQuality", &t.MinQuality); err != nil {
		return err
	}
	ln, ok := m["levels"]
	if !ok || isNull(ln) {
		return r.errf(n, "thresholds.levels", "required: high and medium")
	}
	lm, _, err := r.mapping(ln, "thresholds.levels", []string{"high", "medium"})
	if err != nil {
		return err
	}
	if err := read(lm, ln, "thresholds.levels", "high", &t.Levels.High); err != nil {
		return err
	}
	if err := read(lm, ln, "thresholds.levels", "medium", &t.Levels.Medium); err != nil {
		return err
	}
	if t.MinQuality > t.LowQuality {
		return r.errf(m["minQuality"], "thresholds.minQuality", "%g is above lowQuality %g", t.MinQuality, t.LowQuality)
	}
	if t.Levels.Medium > t.Levels.High {
		return r.errf(lm["medium"], "thresholds.levels.medium", "%g is above high %g", t.Levels.Medium, t.Levels.High)
	}
	if c.Score.Quality == QualityMinMax && t.MinQuality > 0 {
		return r.errf(m["minQuality"], "thresholds.minQuality", "%g with score.quality minmax, which gives the last block of every list 0: it would always be dropped; use 0", t.MinQuality)
	}
	c.Thresholds = t
	return nil
}
