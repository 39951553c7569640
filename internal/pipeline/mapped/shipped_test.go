package mapped

import (
	"path/filepath"
	"testing"
)

// TestShippedConfigsLoad parses every config under deploy/mapped.
func TestShippedConfigsLoad(t *testing.T) {
	files, err := filepath.Glob("../../../deploy/mapped/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped configs: %v", err)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%v", err)
		}
	}
}
