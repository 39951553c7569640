package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// LoadSide judges the fixtures in dir against g as the side called name.
// The side is unavailable, not an error, when dir does not exist or its
// manifest (_snapshot.json) says "status": "unavailable", as for a sidecar
// that could not be reached. Its old fixtures are then ignored. An
// unreadable directory or manifest is an error.
func LoadSide(name, dir string, g *contract.GoldenFile, opts judge.Options) (Side, error) {
	s := Side{Name: name, Fixtures: dir}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.Reason = "no fixture directory at " + dir
		return s, nil
	case err != nil:
		return s, fmt.Errorf("%s fixtures: %w", name, err)
	case !fi.IsDir():
		return s, fmt.Errorf("%s fixtures: %s is not a directory", name, dir)
	}
	m, err := contract.ReadManifest(dir)
	switch {
	case err == nil && m.Status == contract.StatusUnavailable:
		s.Reason = m.Reason
		if s.Reason == "" {
			s.Reason = "its manifest says unavailable"
		}
		return s, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return s, fmt.Errorf("%s fixtures: read manifest: %w", name, err)
	}
	res, err := judge.Run(g, dir, opts)
	if err != nil {
		return s, fmt.Errorf("%s fixtures: %w", name, err)
	}
	s.Result = res
	return s, nil
}
