//go:build !amd64 || purego

package usem3

var activeKernel = genericKernel

// kernels lists every kernel this build can run on this machine.
func kernels() []kernel { return []kernel{genericKernel} }
