package contract

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// ManifestName is the manifest's file name in a fixture directory. Files
// whose name starts with "_" are never read as fixtures.
const ManifestName = "_snapshot.json"

// What rag-snapshot leaves beside a fixture directory DIR while it swaps a
// new set in: .DIR.staging-TOKEN, the set being built, and
// .DIR.staging-TOKEN.old, DIR moved aside by a two-rename swap. Package
// snapshot makes them. The judge names the second when DIR is missing.
const (
	StagingInfix     = ".staging-"
	MovedAsideSuffix = ".old"
)

// IsMovedAside reports whether name, in DIR's parent, is DIR (whose base
// name is base) moved aside by an interrupted swap.
func IsMovedAside(base, name string) bool {
	return strings.HasPrefix(name, "."+base+StagingInfix) && strings.HasSuffix(name, MovedAsideSuffix)
}

// ManifestVersion is the version of the manifest format.
const ManifestVersion = 1

// Manifest statuses.
const (
	StatusAvailable = "available"
	// StatusUnavailable: the pipeline could not be reached. Reason says
	// why, and the directory's fixtures, if any, are not this run's.
	StatusUnavailable = "unavailable"
)

// Manifest is _snapshot.json, the record of the run that wrote a fixture
// directory (docs/fixtures.md). rag-snapshot writes it, and the comparison
// reads its status. Field order is the JSON key order.
type Manifest struct {
	ManifestVersion int    `json:"manifestVersion"`
	Tool            string `json:"tool"`
	// Status is StatusAvailable or StatusUnavailable.
	Status     string    `json:"status"`
	Reason     string    `json:"reason"`
	SearchMode string    `json:"searchMode"`
	KBScope    string    `json:"kbScope"`
	Pipeline   *Pipeline `json:"pipeline"`
	Store      string    `json:"store"`
	Embedder   string    `json:"embedder"`
	// Seed is what rag-seed recorded about the chunking and the corpus of
	// the kbScope the lookups read. It is nil when the pipeline does not
	// say, as for an HTTP pipeline, a store seeded before it was recorded
	// or a manifest of an older rag-snapshot. The JSON omits it when nil.
	Seed *SeedRecord `json:"seed,omitempty"`
	// Started and Finished are RFC 3339 UTC with second precision.
	Started  string `json:"started"`
	Finished string `json:"finished"`
	// Cases is the number of golden cases. Written = Changed + Unchanged
	// is the number with a fixture from this run.
	Cases     int         `json:"cases"`
	Written   int         `json:"written"`
	Changed   int         `json:"changed"`
	Unchanged int         `json:"unchanged"`
	Removed   int         `json:"removed"`
	Failed    []CaseError `json:"failed"`
	// DroppedBlocks counts the evidence blocks an external pipeline sent
	// past those kept of each answer, over the cases written. The JSON
	// omits it when 0.
	DroppedBlocks int `json:"droppedBlocks,omitempty"`
}

// SeedRecord is how the kbScope of a builtin pipeline's store was seeded,
// from kb.IndexInfo. It holds the chunk sizes in Unicode characters as the
// chunker used them, with the defaults resolved and an overlap of 0 for
// none. It holds the number of documents and the corpus fingerprint, the
// hex SHA-256 of their identities and contents (kb.CorpusFingerprint).
type SeedRecord struct {
	ChunkSize    int    `json:"chunkSize"`
	ChunkOverlap int    `json:"chunkOverlap"`
	Documents    int    `json:"documents"`
	CorpusSHA256 string `json:"corpusSha256"`
}

// CaseError is a case that failed, as listed in the manifest.
type CaseError struct {
	CaseID string `json:"caseId"`
	Error  string `json:"error"`
}

// ReadManifest reads dir/_snapshot.json with ReadFixtureFile. A missing
// manifest is an error that satisfies errors.Is(err, fs.ErrNotExist), and
// one that is not a regular file or is over the cap is a *RefusedError.
// A leading byte order mark is skipped, as in a fixture. Unknown keys are
// ignored (a newer rag-snapshot may add some), but a status other than
// "available" or "unavailable" is an error: a typo must not make a stale
// directory count as available.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	data, err := ReadFixtureFile(path, nil)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(TrimBOM(data), &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Status != StatusAvailable && m.Status != StatusUnavailable {
		return nil, fmt.Errorf("%s: field \"status\": %q is neither %q nor %q", path, m.Status, StatusAvailable, StatusUnavailable)
	}
	return &m, nil
}
