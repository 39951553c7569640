package metrics

import (
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/testkit/importcheck"
)

// TestImports keeps the promise of the package comment: metrics imports the
// standard library, as benchstat's benchmath does, and internal/diag for
// its error type.
func TestImports(t *testing.T) {
	importcheck.StandardLibraryOnly(t, "github.com/ragbaseline/ragbaseline/internal/diag")
}
