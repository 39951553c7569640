package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// volatileManifestKeys differ from one run to the next without anything
// having changed. They are ignored when deciding whether to rewrite the
// manifest.
var volatileManifestKeys = []string{"started", "finished", "written", "changed", "unchanged", "removed"}

func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// manifest builds t's manifest.
func (o *Options) manifest(t *target, ds *DirSummary, start time.Time) *contract.Manifest {
	p := t.desc
	failed := ds.Failures
	if failed == nil {
		failed = []contract.CaseError{}
	}
	var seed *contract.SeedRecord
	if t.name == "" && o.Seed != nil {
		s := *o.Seed
		seed = &s
	}
	return &contract.Manifest{
		ManifestVersion: contract.ManifestVersion,
		Tool:            "rag-snapshot",
		Status:          ds.Status,
		Reason:          ds.Reason,
		SearchMode:      string(o.SearchMode),
		KBScope:         o.KBScope,
		Pipeline:        &p,
		Store:           p.Store,
		Embedder:        p.Embedder,
		Seed:            seed,
		Started:         stamp(start),
		Finished:        stamp(o.Now()),
		Cases:           len(o.Cases.Cases),
		Written:         ds.Written,
		Changed:         ds.Changed,
		Unchanged:       ds.Unchanged,
		Removed:         ds.Removed,
		Failed:          failed,
		DroppedBlocks:   ds.DroppedBlocks,
	}
}

func encodeManifest(m *contract.Manifest) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeManifest writes m to dir/_snapshot.json atomically, unless nothing
// changed (fixturesChanged is false) and the existing manifest equals m
// apart from its volatile keys. It reports whether it wrote.
func writeManifest(dir string, m *contract.Manifest, fixturesChanged bool) (bool, error) {
	data, err := encodeManifest(m)
	if err != nil {
		return false, fmt.Errorf("encode manifest: %w", err)
	}
	path := filepath.Join(dir, contract.ManifestName)
	if !fixturesChanged {
		old, err := contract.ReadFixtureFile(path, nil)
		if err == nil && sameJSON(old, data, volatileManifestKeys, nil) {
			return false, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("read manifest: %w", err)
		}
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return false, fmt.Errorf("write manifest: %w", err)
	}
	return true, nil
}
