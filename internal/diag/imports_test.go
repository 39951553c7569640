package diag

import (
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/testkit/importcheck"
)

// TestStandardLibraryOnly keeps the promise of the package comment: the
// package imports nothing but the standard library, so metrics may import
// it.
func TestStandardLibraryOnly(t *testing.T) { importcheck.StandardLibraryOnly(t) }
