// Command rag-eval is the rag-eval binary; its code and manual are package
// github.com/ragbaseline/ragbaseline/cmd/eval (go doc ./cmd/eval). This
// package exists so that go install names the binary rag-eval:
//
//	go install github.com/ragbaseline/ragbaseline/cmd/rag-eval@latest
package main

import "github.com/ragbaseline/ragbaseline/cmd/eval"

// version is set at build time with -ldflags "-X main.version=…" (make
// build, make dist, the Dockerfile); go install leaves it "dev" and
// --version prints the module version instead.
var version = "dev"

func main() { eval.Main(version) }
