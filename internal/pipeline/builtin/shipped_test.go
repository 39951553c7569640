package builtin_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
)

// The shipped fixture sets were produced with the thresholds their embedder
// (pipeline.embedder) is calibrated with: thresholds are looked up by that
// name, and a fixture set that disagreed would be judged, and calibrated,
// against numbers the pipeline no longer uses.
func TestShippedFixturesUseTheirEmbeddersThresholds(t *testing.T) {
	dirs, err := filepath.Glob("../../../eval/rag-retrieval/fixtures*")
	if err != nil || len(dirs) < 3 {
		t.Fatalf("fixture sets %v (%v), want at least 3", dirs, err)
	}
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, contract.ManifestName))
		if err != nil {
			t.Fatal(err)
		}
		var m contract.Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: manifest %v", dir, err)
		}
		if m.Pipeline == nil || m.Pipeline.Params == nil {
			t.Fatalf("%s: manifest without pipeline params: %+v", dir, m.Pipeline)
		}
		th, ok := builtin.ThresholdsFor(m.Pipeline.Embedder)
		if !ok {
			t.Errorf("%s: embedder %s is not calibrated", dir, m.Pipeline.Embedder)
			continue
		}
		p := m.Pipeline.Params
		got := builtin.Thresholds{LowQuality: float64(p.LowQuality), MinQuality: float64(p.MinQuality),
			Levels: builtin.Levels{High: float64(p.Levels.High), Medium: float64(p.Levels.Medium)}, RelQuality: float64(p.RelQuality)}
		if got != th {
			t.Errorf("%s (%s): params %+v, calibrated %+v", dir, m.Pipeline.Embedder, got, th)
		}
	}
}
