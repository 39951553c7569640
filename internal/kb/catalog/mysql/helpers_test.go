package mysql_test

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	drv "github.com/go-sql-driver/mysql"

	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

// serviceDSN returns RAG_MYSQL_DSN, skipping the test without it (failing
// when RAG_REQUIRE_SERVICES=1).
func serviceDSN(t testing.TB) string {
	t.Helper()
	return kbtest.ServiceEnv(t, "RAG_MYSQL_DSN")
}

// freshDatabase creates an empty database ragbaseline_test_<random>, drops
// it when the test ends, and returns the parsed DSN pointing at it.
func freshDatabase(t testing.TB) *drv.Config {
	t.Helper()
	cfg, err := drv.ParseDSN(kbtest.FreshMySQL(t))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// silentServer accepts connections and never answers.
func silentServer(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String()
}

// proxy forwards TCP connections to a MySQL server and can cut them before
// the Nth client command, freeze them, or die altogether: a server that
// stops in the middle of an operation, without stopping the shared server.
type proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	conns map[net.Conn]bool

	frozen   atomic.Bool
	dead     atomic.Bool
	commands atomic.Int64 // client commands since the last arm
	cutAt    atomic.Int64 // cut before this command, 0 for never
	cuts     atomic.Int64 // how many times a cut fired
}

func startProxy(t testing.TB, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(p.kill)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// arm cuts the connection that sends the nth client command from now.
func (p *proxy) arm(n int64) {
	p.commands.Store(0)
	p.cutAt.Store(n)
}

// kill closes the listener and every connection: the server is gone.
func (p *proxy) kill() {
	p.dead.Store(true)
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

func (p *proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		p.conns[c] = true
	}
	return true
}

func (p *proxy) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.track(client, server)
		go p.toClient(client, server)
		go p.toServer(client, server)
	}
}

func (p *proxy) waitThaw() {
	for p.frozen.Load() && !p.dead.Load() {
		time.Sleep(5 * time.Millisecond)
	}
}

func (p *proxy) toClient(client, server net.Conn) {
	defer client.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := server.Read(buf)
		p.waitThaw()
		if n > 0 {
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// toServer forwards the client's stream packet by packet, each with a
// 3-byte length and a 1-byte sequence number. A packet with sequence 0
// starts a command.
func (p *proxy) toServer(client, server net.Conn) {
	defer server.Close()
	defer client.Close()
	var hdr [4]byte
	for {
		if _, err := io.ReadFull(client, hdr[:]); err != nil {
			return
		}
		size := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
		body := make([]byte, size)
		if _, err := io.ReadFull(client, body); err != nil {
			return
		}
		p.waitThaw()
		if hdr[3] == 0 {
			n := p.commands.Add(1)
			if at := p.cutAt.Load(); at > 0 && n >= at && p.cutAt.CompareAndSwap(at, 0) {
				p.cuts.Add(1)
				return // the command never reaches the server
			}
		}
		if _, err := server.Write(append(hdr[:], body...)); err != nil {
			return
		}
	}
}
