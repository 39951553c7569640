package cmdutil

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// DefaultEvalDir is the shipped eval set (docs/README.md). Every default
// path is inside it.
const DefaultEvalDir = "eval/rag-retrieval"

// EvalSet is the eval set a command reads: --dir, the directory every
// default path is inside, and --cases, the golden cases file.
type EvalSet struct {
	Dir   string
	Cases string
}

// AddFlags defines --dir and --cases on fs. dirUsage is --dir's help, and
// "" is the usual "the default of every other path is inside it".
func (s *EvalSet) AddFlags(fs *pflag.FlagSet, dirUsage string) {
	if dirUsage == "" {
		dirUsage = "eval set directory; the default of every other path is inside it"
	}
	fs.StringVar(&s.Dir, "dir", DefaultEvalDir, dirUsage)
	fs.StringVar(&s.Cases, "cases", "", "golden cases file (default <dir>/cases/golden-cases.json)")
}

// CasesFile is where --cases is inside the eval set by default.
const CasesFile = "cases/golden-cases.json"

// Default sets an unset path *p to <dir>/rel, since every default path is
// inside the eval set. --cases defaults to Default(&s.Cases, CasesFile).
func (s *EvalSet) Default(p *string, rel string) {
	if *p == "" {
		*p = filepath.Join(s.Dir, rel)
	}
}

// LoadCases reads the golden cases file with contract.ReadSetFile, parses
// it strictly and returns it with the hex SHA-256 of its bytes, which every
// report records. Any problem is a usage or input error: exit 2.
func LoadCases(path string) (*contract.GoldenFile, string, error) {
	data, err := contract.ReadSetFile(path)
	if err != nil {
		return nil, "", Usagef("load golden cases: %w", err)
	}
	g, err := contract.ParseGolden(path, data)
	if err != nil {
		return nil, "", Usagef("load golden cases:\n%w", err)
	}
	sum := sha256.Sum256(data)
	return g, hex.EncodeToString(sum[:]), nil
}
