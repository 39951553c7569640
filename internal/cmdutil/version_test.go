package cmdutil

import (
	"runtime/debug"
	"testing"
)

// Version: the version set at build time wins. Without one, go install's
// module version does. Without that, it is "dev": a build inside the
// source tree without VCS stamping, a test binary.
func TestVersion(t *testing.T) {
	info := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/ragbaseline/ragbaseline", Version: v}}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, tt := range []struct {
		name, v string
		bi      func() (*debug.BuildInfo, bool)
		want    string
	}{
		{"set at build time", "v1.2.0-3-gabcdef0", info("v1.1.0"), "v1.2.0-3-gabcdef0"},
		{"go install @version", "dev", info("v1.1.0"), "v1.1.0"},
		{"empty -X", "", info("v1.1.0"), "v1.1.0"},
		{"built in the source tree", "dev", info("(devel)"), "dev"},
		{"no module version", "dev", info(""), "dev"},
		{"no build info", "dev", none, "dev"},
	} {
		if got := version(tt.v, tt.bi); got != tt.want {
			t.Errorf("%s: version(%q) = %q, want %q", tt.name, tt.v, got, tt.want)
		}
	}
}
