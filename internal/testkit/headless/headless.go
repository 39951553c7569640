// Package headless starts a headless Chromium with the network disabled,
// for the HTML reports' browser tests and for make screenshots. It is a
// browser client, and rag-eval must never import it.
//
// Chromium is found by Find: $RAG_CHROMIUM, else chromium,
// chromium-browser, google-chrome or google-chrome-stable on PATH. On
// Debian, make browser installs it with scripts/browser.sh.
//
// The browser runs with a proxy that does not exist and a host resolver
// that resolves nothing. So a page that tried to reach the network would
// fail to. The tests also record every request a page makes.
package headless

import (
	"context"
	"errors"
	"os"
	"os/exec"

	"github.com/chromedp/chromedp"
)

// ErrNotFound is returned by Find when no Chromium is installed.
var ErrNotFound = errors.New("no Chromium found: run `make browser` to install it, or set RAG_CHROMIUM to one")

// Find returns the path of the Chromium to run.
func Find() (string, error) {
	if p := os.Getenv("RAG_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", err
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// Start returns a chromedp context of a new headless Chromium at path,
// with the network disabled and a window of width × height pixels. The
// browser starts on the first action run on the context and stops when
// cancel is called.
func Start(parent context.Context, path string, width, height int) (context.Context, context.CancelFunc) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(width, height),
		// No network: every host resolves to nothing, through a proxy that
		// is not there.
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("allow-file-access-from-files", false),
	)
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root with its sandbox (a CI
		// container).
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	return ctx, func() {
		cancelCtx()
		cancelAlloc()
	}
}
