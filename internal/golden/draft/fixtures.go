package draft

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/golden/querylog"
)

// ProductionPipeline is the pipeline name of the fixtures made from the
// spans of a trace export: what production retrieved.
const ProductionPipeline = "production"

// Tool is the manifest's tool for a directory of production fixtures.
const Tool = "rag-eval draft"

// Fixture is one fixture of the production side and the case it is for.
type Fixture struct {
	CaseID string
	Data   []byte
}

// Production is the production side of a trace export: the fixtures of the
// spans, one per case, and their manifest.
type Production struct {
	Fixtures []Fixture
	Manifest []byte
}

// ProductionSide makes the fixtures of what the retriever spans of r's log
// retrieved, for every draft and every case of the existing file the log
// asks again. Cases without a span, as in a log of another format, have
// none. A case's fixture is made from its span asked in the case's query
// text when there is one, else from any of its spans: the latest by start
// time, the first in the file of those tied. cases is the number of cases
// of the file the drafts go to, recorded in the manifest.
//
// A fixture (docs/fixtures.md) records the case's caseId and query,
// retrievedAt the span's start time (absent when the span has none),
// kbScope, the pipeline {"name": "production", "capabilities": []}
// and, from the span's documents in order, lookupResult.found (some
// document was retrieved) and evidenceBlocks: rank, docId (document.id),
// source (the metadata's source, else document.id), title (the metadata's
// title), excerpt (document.content) and fusedScore (document.score),
// each only when the span has it. The pipeline declares no capability, so
// the judge skips the checks of the parts a span does not have. The
// manifest says tool "rag-eval draft", status available, and started and
// finished the earliest and latest start of those spans. The same log gives
// the same bytes.
func ProductionSide(r *Result, kbScope string, cases int) (*Production, error) {
	type pick struct {
		caseID, query string
		span          *querylog.Span
	}
	var picks []pick
	add := func(q Query, caseID, query string) {
		if s := latestSpan(r.Log, q.Records, query); s != nil {
			picks = append(picks, pick{caseID, query, s})
		}
	}
	for _, q := range r.Drafts {
		add(q, q.CaseID, q.Query)
	}
	for _, k := range r.Known {
		add(k.Query, k.Case.CaseID, k.Case.Query)
	}
	sort.Slice(picks, func(i, j int) bool { return picks[i].caseID < picks[j].caseID })
	pipeline := &contract.Pipeline{Name: ProductionPipeline, Capabilities: []string{}}
	p := &Production{}
	var first, last uint64
	for _, pk := range picks {
		f := &contract.Fixture{
			CaseID: pk.caseID, Query: pk.query, RetrievedAt: stamp(pk.span.Start), KBScope: kbScope, Pipeline: pipeline,
			LookupResult: spanResult(pk.span),
		}
		data, err := contract.EncodeFixture(f)
		if err != nil {
			return nil, err
		}
		p.Fixtures = append(p.Fixtures, Fixture{CaseID: pk.caseID, Data: data})
		if s := pk.span.Start; s != 0 {
			if first == 0 || s < first {
				first = s
			}
			last = max(last, s)
		}
	}
	m := &contract.Manifest{
		ManifestVersion: contract.ManifestVersion, Tool: Tool, Status: contract.StatusAvailable,
		KBScope: kbScope, Pipeline: pipeline, Started: stamp(first), Finished: stamp(last),
		Cases: cases, Written: len(p.Fixtures), Changed: len(p.Fixtures), Failed: []contract.CaseError{},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	p.Manifest = buf.Bytes()
	return p, nil
}

// latestSpan is the span of the records (indexes into log) to make a
// case's fixture of: among those asked in query when there are any, else
// among all, the latest by start time, the first of those tied. It is nil
// when no record has a span.
func latestSpan(log *querylog.Log, records []int, query string) *querylog.Span {
	var best *querylog.Span
	exact := false
	for _, i := range records {
		rec := &log.Records[i]
		s := rec.Span
		if s == nil {
			continue
		}
		same := rec.Query == query
		switch {
		case best == nil, same && !exact, same == exact && s.Start > best.Start:
			best, exact = s, same
		}
	}
	return best
}

// spanResult is the lookup result of a span's documents, Partial: only
// what the span carries is written.
func spanResult(s *querylog.Span) *contract.LookupResult {
	lr := &contract.LookupResult{Found: len(s.Documents) > 0, Partial: true,
		Has: contract.HasFound | contract.HasEvidenceBlocks, EvidenceBlocks: []contract.EvidenceBlock{}}
	for i, d := range s.Documents {
		b := contract.EvidenceBlock{Rank: i + 1, HasRank: true, DocID: d.ID, Source: d.Source, Title: d.Title, Excerpt: d.Content}
		if b.Source == "" {
			b.Source = d.ID
		}
		set := func(ok bool, bit contract.BlockPresence) {
			if ok {
				b.Has |= bit
			}
		}
		set(b.DocID != "", contract.BlockHasDocID)
		set(b.Source != "", contract.BlockHasSource)
		set(b.Title != "", contract.BlockHasTitle)
		set(d.HasContent, contract.BlockHasExcerpt)
		if d.Score != nil {
			b.FusedScore = contract.Float6(*d.Score)
			b.Has |= contract.BlockHasFusedScore
		}
		lr.EvidenceBlocks = append(lr.EvidenceBlocks, b)
	}
	return lr
}

// stamp is a span time as a fixture's retrievedAt: RFC 3339 UTC to the
// second, "" when unknown.
func stamp(ns uint64) string {
	if ns == 0 || ns > math.MaxInt64 {
		return ""
	}
	return time.Unix(0, int64(ns)).UTC().Format("2006-01-02T15:04:05Z")
}

// CheckProductionDir checks that dir may take a production side: it does
// not exist, is empty, or holds a production side written before (its
// manifest's tool is Tool).
func CheckProductionDir(dir string) error {
	_, err := productionDir(dir)
	return err
}

// productionDir is CheckProductionDir, and reports whether dir exists.
func productionDir(dir string) (exists bool, err error) {
	switch entries, err := os.ReadDir(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case len(entries) > 0:
		if m, err := contract.ReadManifest(dir); err != nil || m.Tool != Tool {
			return false, fmt.Errorf("%s holds files that rag-eval draft did not write; give a new or empty directory", dir)
		}
	}
	return true, nil
}

// WriteProduction writes p to the directory dir as a whole: into a staging
// directory beside it (.DIR.staging-…), which then replaces dir. dir must
// pass CheckProductionDir: any other directory is refused, untouched.
func WriteProduction(dir string, p *Production) error {
	exists, err := productionDir(dir)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	staging, err := os.MkdirTemp(parent, "."+base+contract.StagingInfix+"draft-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging)
	if err := os.Chmod(staging, 0o755); err != nil {
		return err
	}
	for _, f := range p.Fixtures {
		if err := atomicfile.WriteFile(filepath.Join(staging, f.CaseID+".json"), f.Data, 0o644); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(filepath.Join(staging, contract.ManifestName), p.Manifest, 0o644); err != nil {
		return err
	}
	if !exists {
		return os.Rename(staging, abs)
	}
	old := staging + contract.MovedAsideSuffix
	if err := os.Rename(abs, old); err != nil {
		return err
	}
	if err := os.Rename(staging, abs); err != nil {
		if rerr := os.Rename(old, abs); rerr != nil {
			return fmt.Errorf("%w; the previous directory is at %s", err, old)
		}
		return err
	}
	return os.RemoveAll(old)
}
