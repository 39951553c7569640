package lookuphttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
)

// decodeHealth reads the pipeline a /healthz answer declares, from data,
// its body, which b read. A body that is not JSON, such as "ok", and one
// without a pipeline, or with a null one, declare nothing: nil. A JSON
// body must be an object, UTF-8, and its pipeline an object whose fields
// have the types and values of contract.Pipeline: a field of the wrong
// type or outside its range is an error naming it. An absent or null field
// is not declared. The client's SearchMode and Capabilities replace the
// server's, which are then not read.
func (c *Client) decodeHealth(data []byte, b *bodyReader) (*contract.Pipeline, error) {
	t := bytes.TrimSpace(data)
	switch {
	case len(t) == 0 || string(t) == "null":
		return nil, nil
	case !json.Valid(t):
		if t[0] != '{' && t[0] != '[' && t[0] != '"' {
			return nil, nil // text, such as ok
		}
		return nil, fmt.Errorf("the body is not JSON: %s", c.excerpt(t))
	case !utf8.Valid(t):
		off := 0
		for off < len(t) {
			r, n := utf8.DecodeRune(t[off:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			off += n
		}
		return nil, &notUTF8Error{offset: int64(bytes.Index(data, t) + off), charset: b.charset}
	case t[0] != '{':
		return nil, fmt.Errorf("the body is %s, not an object with the pipeline: %s", jsonKind(t[0]), c.excerpt(t))
	}
	top, err := members(t, "", c.excerpt)
	if err != nil {
		return nil, err
	}
	pm, err := top.object("pipeline")
	if pm == nil || err != nil {
		return nil, err
	}
	p := &contract.Pipeline{}
	pm.get("name", &p.Name)
	pm.get("version", &p.Version)
	pm.get("store", &p.Store)
	pm.get("embedder", &p.Embedder)
	if pm.get("dim", &p.Dim) && p.Dim < 0 {
		pm.fail("dim", fmt.Sprintf("must be 0 or more, got %d", p.Dim))
	}
	if pm.err != nil {
		return nil, pm.err
	}
	if c.SearchMode == "" {
		if pm.get("searchMode", &p.SearchMode) && !slices.Contains(contract.PipelineSearchModes, p.SearchMode) {
			pm.fail("searchMode", fmt.Sprintf("unknown search mode %s (known: %s)", strconv.Quote(p.SearchMode), strings.Join(contract.PipelineSearchModes, ", ")))
		}
		if pm.err != nil {
			return nil, fmt.Errorf("%v; --pipeline-search-mode overrides it", pm.err)
		}
	}
	if c.Capabilities == nil {
		if pm.get("capabilities", &p.Capabilities) {
			for _, name := range p.Capabilities {
				if !slices.Contains(contract.Capabilities, name) {
					pm.fail("capabilities", fmt.Sprintf("unknown capability %s (known: %s)", strconv.Quote(name), strings.Join(contract.Capabilities, ", ")))
					break
				}
			}
		}
		if pm.err != nil {
			return nil, fmt.Errorf("%v; --pipeline-capabilities overrides them", pm.err)
		}
	}
	params, err := pm.object("params")
	if params == nil || err != nil {
		return p, err
	}
	p.Params = &contract.PipelineParams{}
	if err := decodeParams(params, p.Params); err != nil {
		return nil, err
	}
	return p, nil
}

// decodeParams reads the params of a /healthz pipeline from m into pp:
// counts of 0 or more, a topK of at most builtin.MaxTopK, and thresholds
// from 0 to 1, as the builtin pipeline's are.
func decodeParams(m *jsonMembers, pp *contract.PipelineParams) error {
	for _, f := range []struct {
		key string
		v   *int
		max int
	}{{"topK", &pp.TopK, builtin.MaxTopK}, {"candidateK", &pp.CandidateK, MaxRank}, {"contextBudget", &pp.ContextBudget, MaxRank}} {
		if m.get(f.key, f.v) && (*f.v < 0 || *f.v > f.max) {
			m.fail(f.key, fmt.Sprintf("must be from 0 to %d, got %d", f.max, *f.v))
		}
	}
	m.get("fusion", &pp.Fusion)
	m.get("rerank", &pp.Rerank)
	type threshold struct {
		m   *jsonMembers
		key string
		v   *contract.Float6
	}
	thresholds := []threshold{{m, "lowQuality", &pp.LowQuality}, {m, "minQuality", &pp.MinQuality}, {m, "relQuality", &pp.RelQuality}}
	levels, err := m.object("levels")
	if err != nil {
		return err
	}
	if levels != nil {
		thresholds = append(thresholds, threshold{levels, "high", &pp.Levels.High}, threshold{levels, "medium", &pp.Levels.Medium})
	}
	for _, f := range thresholds {
		if f.m.get(f.key, f.v) {
			if err := unitScore(f.v, f.m.at(f.key)); err != nil {
				f.m.fail(f.key, strings.TrimPrefix(err.Error(), f.m.at(f.key)+": "))
			}
		}
		if f.m.err != nil {
			return f.m.err
		}
	}
	return m.err
}

// fail records the error msg of key, unless an error came first.
func (j *jsonMembers) fail(key, msg string) {
	if j.err == nil {
		j.err = fmt.Errorf("%s: %s", j.at(key), msg)
	}
}

// jsonKind names the kind of JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '"':
		return "a string"
	case '[':
		return "an array"
	case 't', 'f':
		return "true or false"
	}
	return "a number"
}
