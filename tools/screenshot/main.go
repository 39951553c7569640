// Command screenshot loads an HTML report in headless Chromium, through
// package headless without network. It writes a PNG of the window, reduced
// to a 256-colour palette so that the README's screenshots stay small. It
// fails if the page logs an error or requests anything but its own file.
//
//	go run ./tools/screenshot -in report.html -out docs/images/report.png \
//	    -width 1200 -height 900 -click '#cases details.case[data-status=fail] > summary'
//
// make screenshots runs it on the reports of scripts/screenshots.sh.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
	"github.com/ragbaseline/ragbaseline/internal/testkit/headless"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ", ") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	in := flag.String("in", "", "HTML file to load")
	out := flag.String("out", "", "PNG to write")
	width := flag.Int("width", 1200, "window width in CSS pixels")
	height := flag.Int("height", 900, "window height in CSS pixels")
	scroll := flag.String("scroll", "", "CSS selector of an element to scroll to the top of the window")
	var clicks list
	flag.Var(&clicks, "click", "CSS selector of an element to click before the screenshot (repeatable, in order)")
	flag.Parse()
	if *in == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "screenshot: -in and -out are required")
		os.Exit(2)
	}
	if err := run(*in, *out, *width, *height, clicks, *scroll); err != nil {
		fmt.Fprintln(os.Stderr, "screenshot:", err)
		os.Exit(1)
	}
}

func run(in, out string, width, height int, clicks []string, scroll string) error {
	abs, err := filepath.Abs(in)
	if err != nil {
		return err
	}
	path, err := headless.Find()
	if err != nil {
		return err
	}
	ctx, cancel := headless.Start(context.Background(), path, width, height)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		return err
	}
	fileURL := (&url.URL{Scheme: "file", Path: abs}).String()
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			if ev.Request.URL != fileURL {
				problems = append(problems, "request "+ev.Request.URL)
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				problems = append(problems, "error "+ev.Entry.Text)
			}
		}
	}); err != nil {
		return err
	}
	tctx, cancelT := context.WithTimeout(ctx, time.Minute)
	defer cancelT()
	steps := []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(int64(width), int64(height)), chromedp.Navigate(fileURL)}
	for _, c := range clicks {
		steps = append(steps, chromedp.Click(chromedp.CSS(c)))
	}
	if scroll != "" {
		steps = append(steps, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Evaluate[bool](fmt.Sprintf(`(document.querySelector(%q).scrollIntoView(), window.scrollBy(0, -8), true)`, scroll))(ctx, t)
			return err
		}))
	}
	if err := chromedp.Do(tctx, steps...); err != nil {
		return err
	}
	shot, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		return fmt.Errorf("%s: %s", in, strings.Join(problems, "; "))
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&b, quantize(img)); err != nil {
		return err
	}
	return atomicfile.WriteFile(out, b.Bytes(), 0o644)
}

// quantize maps img to a palette of its 256 most frequent colours, each
// pixel to the nearest of them (no dithering: a report is flat colours and
// anti-aliased text).
func quantize(img image.Image) *image.Paletted {
	r := img.Bounds()
	freq := map[color.RGBA]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			freq[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	cols := make([]color.RGBA, 0, len(freq))
	for c := range freq {
		cols = append(cols, c)
	}
	sort.Slice(cols, func(i, j int) bool {
		if freq[cols[i]] != freq[cols[j]] {
			return freq[cols[i]] > freq[cols[j]]
		}
		a, b := cols[i], cols[j]
		return uint32(a.R)<<24|uint32(a.G)<<16|uint32(a.B)<<8|uint32(a.A) < uint32(b.R)<<24|uint32(b.G)<<16|uint32(b.B)<<8|uint32(b.A)
	})
	pal := make(color.Palette, 0, 256)
	for _, c := range cols[:min(256, len(cols))] {
		pal = append(pal, c)
	}
	p := image.NewPaletted(r, pal)
	index := map[color.RGBA]uint8{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			p.SetColorIndex(x, y, i)
		}
	}
	return p
}
