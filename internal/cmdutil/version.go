package cmdutil

import "runtime/debug"

// Version is the version a binary reports with --version. It is v, which
// the main package sets at build time with -ldflags "-X main.version=…",
// as make build, make dist and the Dockerfile do. Without it, it is the
// module version the Go command recorded in the binary: v1.2.3 after
// `go install github.com/ragbaseline/ragbaseline/cmd/rag-eval@v1.2.3`.
// Without that, it is "dev".
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
