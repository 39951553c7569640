package cmdutil

import "runtime/debug"

// Version is the version a binary reports with --version: v, which its
// main package sets at build time (-ldflags "-X main.version=…", as make
// build, make dist and the Dockerfile do), else the module version the Go
// command recorded in the binary (v1.2.3 after `go install
// github.com/ragbaseline/ragbaseline/cmd/rag-eval@v1.2.3`), else "dev".
func Version(v string) string {
	return version(v, debug.ReadBuildInfo)
}

func version(v string, buildInfo func() (*debug.BuildInfo, bool)) string {
	if v != "" && v != "dev" {
		return v
	}
	if bi, ok := buildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
