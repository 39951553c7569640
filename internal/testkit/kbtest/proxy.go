package kbtest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a real server and can be cut, which is
// what a client sees when the server stops or the network fails: every
// open connection is closed and new ones are closed at once, until
// Restore. Tests use it to stop MariaDB or Milvus "mid-run" without
// stopping the shared server. The listening address stays the same for
// the proxy's whole life, so no other test can take the port in between.
type Proxy struct {
	target string
	ln     net.Listener
	mu     sync.Mutex
	conns  []net.Conn
	cut    bool
}

// NewProxy listens on a loopback port and forwards to target until the
// test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{target: target, ln: ln}
	go p.serve()
	t.Cleanup(func() { p.Cut(); ln.Close() })
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		p.mu.Unlock()
		if cut {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			s.Close()
			continue
		}
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { io.Copy(s, c); s.Close() }()
		go func() { io.Copy(c, s); c.Close() }()
	}
}

// Cut closes every connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Restore forwards new connections again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
}
