// Command rag-snapshot is the rag-snapshot binary; its code and manual are package
// github.com/ragbaseline/ragbaseline/cmd/snapshot (go doc ./cmd/snapshot). This
// package exists so that go install names the binary rag-snapshot:
//
//	go install github.com/ragbaseline/ragbaseline/cmd/rag-snapshot@latest
package main

import "github.com/ragbaseline/ragbaseline/cmd/snapshot"

// version is set at build time with -ldflags "-X main.version=…" (make
// build, make dist, the Dockerfile); go install leaves it "dev" and
// --version prints the module version instead.
var version = "dev"

func main() { snapshot.Main(version) }
