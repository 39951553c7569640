package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// The manifest check. rag-snapshot writes a directory's fixtures and its
// manifest (_snapshot.json) together, so every fixture's searchMode,
// kbScope and pipeline equal the manifest's. A fixture that disagrees
// comes from another snapshot, and the directory mixes two runs. It may be
// a run killed by an older rag-snapshot while it moved fixtures in one by
// one, a failed case kept by --partial or a file copied in by hand. Its
// judgement would silently mix two pipelines. The judge still judges every
// fixture, and adds one warning per kind of disagreement (searchMode,
// kbScope, pipeline) with the count and the first case ids. The warnings
// go to stderr and into the reports' warnings, so the reports of a
// consistent directory are unchanged.
//
// Only what both sides declare is compared. A manifest without searchMode,
// kbScope or pipeline is not checked on it, and neither is a fixture
// without one, as hand-written fixtures often are. A manifest whose status
// is "unavailable" describes a run that wrote no fixture, so nothing is
// checked against it. A directory without a manifest is not checked at
// all. A manifest that cannot be read is a warning of its own.

// maxListedIDs is how many case ids a warning lists.
const maxListedIDs = 5

// pipelineField bits name the fields of a pipeline that differ.
type pipelineField uint16

const (
	fieldName pipelineField = 1 << iota
	fieldVersion
	fieldStore
	fieldEmbedder
	fieldDim
	fieldParams
	fieldSearchMode
	fieldCapabilities
	fieldUnreadable // the fixture's pipeline is not a pipeline object
)

var pipelineFieldNames = []string{"name", "version", "store", "embedder", "dim", "params", "searchMode", "capabilities", "unreadable"}

func (f pipelineField) names() []string {
	var out []string
	for i, n := range pipelineFieldNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// manifestCheck holds the manifest the fixtures are checked against.
type manifestCheck struct {
	m *contract.Manifest
}

// manifestCheckOf is the check against dir's manifest, from what
// contract.ReadManifest returned, m and err. It is nil, with nothing to
// check, when there is no manifest or it says "unavailable". It comes with
// a warning when the manifest cannot be read.
func manifestCheckOf(m *contract.Manifest, err error) (*manifestCheck, error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("fixtures not checked against their manifest: %v", err)
	case m.Status == contract.StatusUnavailable:
		return nil, nil
	}
	if m.SearchMode == "" && m.KBScope == "" && m.Pipeline == nil {
		return nil, nil
	}
	return &manifestCheck{m: m}, nil
}

// fixtureMeta is what the manifest check needs of one fixture.
type fixtureMeta struct {
	read                bool // a valid fixture was read
	searchMode, kbScope string
	hasPipeline         bool
	pipelineDiff        pipelineField
}

// pipelineCache spares decoding the same pipeline again: a worker's
// fixtures nearly always carry identical bytes.
type pipelineCache struct {
	raw  []byte
	diff pipelineField
	ok   bool
}

// meta extracts f's fields to check. data is the fixture's bytes, valid
// JSON since the fixture decoder has checked it.
func (mc *manifestCheck) meta(f *contract.Fixture, data []byte, cache *pipelineCache) fixtureMeta {
	fm := fixtureMeta{read: true, searchMode: f.SearchMode, kbScope: f.KBScope}
	if mc.m.Pipeline == nil {
		return fm
	}
	raw := firstMember(data, "pipeline")
	if raw == nil || string(bytes.TrimSpace(raw)) == "null" {
		return fm
	}
	fm.hasPipeline = true
	if cache.ok && bytes.Equal(cache.raw, raw) {
		fm.pipelineDiff = cache.diff
		return fm
	}
	var p contract.Pipeline
	if err := json.Unmarshal(raw, &p); err != nil {
		fm.pipelineDiff = fieldUnreadable
	} else {
		fm.pipelineDiff = diffPipeline(mc.m.Pipeline, &p)
	}
	cache.raw, cache.diff, cache.ok = append(cache.raw[:0], raw...), fm.pipelineDiff, true
	return fm
}

func diffPipeline(a, b *contract.Pipeline) pipelineField {
	var d pipelineField
	if a.Name != b.Name {
		d |= fieldName
	}
	if a.Version != b.Version {
		d |= fieldVersion
	}
	if a.Store != b.Store {
		d |= fieldStore
	}
	if a.Embedder != b.Embedder {
		d |= fieldEmbedder
	}
	if a.Dim != b.Dim {
		d |= fieldDim
	}
	if (a.Params == nil) != (b.Params == nil) || a.Params != nil && *a.Params != *b.Params {
		d |= fieldParams
	}
	if a.SearchMode != b.SearchMode {
		d |= fieldSearchMode
	}
	if (a.Capabilities == nil) != (b.Capabilities == nil) || !slices.Equal(a.Capabilities, b.Capabilities) {
		d |= fieldCapabilities
	}
	return d
}

// warnings returns one warning per kind of disagreement between the
// fixtures (metas, in golden order, as cases) and the manifest.
func (mc *manifestCheck) warnings(dir string, cases []CaseResult, metas []fixtureMeta) []error {
	failedInRun := make(map[string]bool, len(mc.m.Failed))
	for _, f := range mc.m.Failed {
		failedInRun[f.CaseID] = true
	}
	read := 0
	var modeIDs, scopeIDs, pipeIDs []string
	modeVals, scopeVals := map[string]bool{}, map[string]bool{}
	var fields pipelineField
	for i, fm := range metas {
		if !fm.read {
			continue
		}
		read++
		id := cases[i].CaseID
		if mc.m.SearchMode != "" && fm.searchMode != "" && fm.searchMode != mc.m.SearchMode {
			modeIDs = append(modeIDs, id)
			modeVals[fm.searchMode] = true
		}
		if mc.m.KBScope != "" && fm.kbScope != "" && fm.kbScope != mc.m.KBScope {
			scopeIDs = append(scopeIDs, id)
			scopeVals[fm.kbScope] = true
		}
		if fm.hasPipeline && fm.pipelineDiff != 0 {
			pipeIDs = append(pipeIDs, id)
			fields |= fm.pipelineDiff
		}
	}
	var ws []error
	warn := func(ids []string, what string) {
		if len(ids) == 0 {
			return
		}
		msg := fmt.Sprintf("%d of %d fixtures in %s disagree with its manifest on %s: %s", len(ids), read, dir, what, listIDs(ids))
		kept := 0
		for _, id := range ids {
			if failedInRun[id] {
				kept++
			}
		}
		if kept > 0 {
			msg += fmt.Sprintf("; %d of them failed in the manifest's run and kept an earlier fixture (--partial)", kept)
		}
		ws = append(ws, errors.New(msg+"; the directory mixes snapshots: run rag-snapshot again"))
	}
	warn(modeIDs, fmt.Sprintf("searchMode (manifest %q, fixtures %s)", mc.m.SearchMode, quoteSet(modeVals)))
	warn(scopeIDs, fmt.Sprintf("kbScope (manifest %q, fixtures %s)", mc.m.KBScope, quoteSet(scopeVals)))
	warn(pipeIDs, fmt.Sprintf("pipeline (%s)", strings.Join(fields.names(), ", ")))
	if p := mc.m.Pipeline; p != nil {
		// A name no check needs, such as the typo "Trace", declares
		// nothing, so the checks of the part meant are skipped. Say so.
		if err := contract.ValidCapabilities(p.Capabilities); err != nil {
			ws = append(ws, fmt.Errorf("the manifest of %s declares an %v: it stands for no part of a result, and the checks of the part it lacks are skipped", dir, err))
		}
	}
	return ws
}

func listIDs(ids []string) string { return diag.Join(ids, maxListedIDs) }

func quoteSet(set map[string]bool) string {
	vals := make([]string, 0, len(set))
	for v := range set {
		vals = append(vals, fmt.Sprintf("%q", v))
	}
	sort.Strings(vals)
	return strings.Join(vals, ", ")
}

// firstMember returns the raw value of the first member named key of the
// JSON object data, or nil. data must be valid JSON. rag-snapshot writes
// pipeline before lookupResult, so the scan stops a few hundred bytes in.
// The fixture decoder takes the last of duplicate keys instead. A fixture
// with two pipelines is not one rag-snapshot wrote, so the difference does
// not matter.
func firstMember(data []byte, key string) []byte {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipSpace(data, i)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		if i >= len(data) || data[i] != '"' {
			return nil
		}
		end := stringEnd(data, i)
		if end < 0 {
			return nil
		}
		k := data[i+1 : end-1]
		match := string(k) == key
		if !match && bytes.IndexByte(k, '\\') >= 0 {
			var s string
			match = json.Unmarshal(data[i:end], &s) == nil && s == key
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil
		}
		i = skipSpace(data, i+1)
		vend := valueEnd(data, i)
		if vend < 0 {
			return nil
		}
		if match {
			return data[i:vend]
		}
		i = vend
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string that starts at data[i] ('"').
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd returns the index after the value that starts at data[i] (a
// scalar ends before the next ',' or '}').
func valueEnd(data []byte, i int) int {
	depth := 0
	for j := i; j < len(data); j++ {
		switch data[j] {
		case '"':
			e := stringEnd(data, j)
			if e < 0 {
				return -1
			}
			if depth == 0 {
				return e
			}
			j = e - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case ',':
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}
