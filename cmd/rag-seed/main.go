// Command rag-seed is the rag-seed binary; its code and manual are package
// github.com/ragbaseline/ragbaseline/cmd/seed (go doc ./cmd/seed). This
// package exists so that go install names the binary rag-seed:
//
//	go install github.com/ragbaseline/ragbaseline/cmd/rag-seed@latest
package main

import "github.com/ragbaseline/ragbaseline/cmd/seed"

// version is set at build time with -ldflags "-X main.version=…" (make
// build, make dist, the Dockerfile); go install leaves it "dev" and
// --version prints the module version instead.
var version = "dev"

func main() { seed.Main(version) }
