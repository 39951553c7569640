package usem3

import (
	"context"
	"math"

	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
)

// segment is a run of one text's tokens computed together: rows lo…hi-1
// of the text are embedded and convolved (the window of a row never
// reaches outside them: positions outside are zero, as at the ends of a
// text), and rows coreLo…coreHi-1, whose halo of context is complete, are
// summed into the text's pooled row.
type segment struct {
	text           int // index of the text, and of its pooled row
	ids            []int32
	lo, hi         int
	coreLo, coreHi int
}

// job is a unit of work for one goroutine: a few short texts in one batch,
// or one long text in consecutive batches of segments, which must run in
// order (they add to the same pooled row).
type job struct {
	batches [][]segment
}

// plan groups tokenised texts into jobs of at most budget rows per batch.
// A text longer than budget is cut into segments of budget-2·halo core
// rows. The result of a text does not depend on the plan (see gemm and
// halo), only its speed does.
func plan(tokens [][]int32, budget int) []job {
	var jobs []job
	var cur []segment
	rows := 0
	flush := func() {
		if len(cur) > 0 {
			jobs = append(jobs, job{batches: [][]segment{cur}})
		}
		cur, rows = nil, 0
	}
	for i, ids := range tokens {
		n := len(ids)
		if n > budget {
			flush()
			var j job
			core := budget - 2*halo
			for c0 := 0; c0 < n; c0 += core {
				c1 := min(c0+core, n)
				j.batches = append(j.batches, []segment{{
					text: i, ids: ids,
					lo: max(c0-halo, 0), hi: min(c1+halo, n),
					coreLo: c0, coreHi: c1,
				}})
			}
			jobs = append(jobs, j)
			continue
		}
		if rows+n > budget {
			flush()
		}
		cur = append(cur, segment{text: i, ids: ids, lo: 0, hi: n, coreLo: 0, coreHi: n})
		rows += n
	}
	flush()
	return jobs
}

// roundUp rounds n up to a multiple of rowBlock.
func roundUp(n int) int { return (n + rowBlock - 1) / rowBlock * rowBlock }

// workspace holds one goroutine's buffers, reused from call to call.
type workspace struct {
	feats []float32 // rows×featDim: embedding ‖ branch outputs
	x     []float32 // rows×projDim: the projections, layer-normed
	h     []float32 // rows×cnnDim: first convolution of a branch
	col   []float32 // rows×(width·cnnDim): convolution windows

	mean       []float32 // texts×embDim
	y0, y1, t1 []float32 // texts×hidDim
	y2, z, t2  []float32 // texts×embDim
}

func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// runJob runs the per-token layers of the job's batches, adding to the rows
// of pooled. pooled has texts×featDim values, zero at first. It stops
// early, leaving pooled incomplete, once ctx is done, because a very long
// text is many batches of one job. The caller then returns ctx's error.
func (w *weights) runJob(ctx context.Context, ws *workspace, j *job, pooled []float32) {
	for _, b := range j.batches {
		if ctx.Err() != nil {
			return
		}
		w.tokenPass(ws, b, pooled)
	}
}

// tokenPass runs the per-token layers on one batch of segments and adds the
// features of their core rows to their texts' rows of pooled.
func (w *weights) tokenPass(ws *workspace, segs []segment, pooled []float32) {
	rows := 0
	for _, s := range segs {
		rows += s.hi - s.lo
	}
	m := roundUp(rows)
	ws.feats = grow(ws.feats, m*featDim)
	ws.x = grow(ws.x, m*projDim)
	ws.h = grow(ws.h, m*cnnDim)
	ws.col = grow(ws.col, m*5*cnnDim)
	feats, x, h := ws.feats, ws.x, ws.h

	// Token embeddings, dequantised: q·scale + lo, each product rounded.
	r := 0
	for _, s := range segs {
		for _, id := range s.ids[s.lo:s.hi] {
			c := int(id) % numChunks
			q := w.q[c][int(id)/numChunks*embDim : (int(id)/numChunks+1)*embDim]
			vecDequant(feats[r*featDim:r*featDim+embDim], q, w.scale[c], w.lo[c])
			r++
		}
	}
	for ; r < m; r++ {
		clear(feats[r*featDim : (r+1)*featDim])
	}

	// The three branch projections side by side, plus bias, layer-normed
	// jointly over their 768 values.
	gemm(m, feats, featDim, w.proj, x, projDim)
	for r := range rows {
		xr := x[r*projDim : (r+1)*projDim]
		vecAddTo(xr, w.projB)
		layerNorm(xr, w.lnG1, w.lnB1, w.eps)
	}

	for i, br := range branches {
		k := br.width * cnnDim
		// h = relu(window(x_i)·W1 + b1) + x_i
		windows(ws.col, k, segs, br, x[i*cnnDim:], projDim, m)
		gemm(m, ws.col, k, w.w1[i], h, cnnDim)
		for r := range rows {
			vecResidual(h[r*cnnDim:(r+1)*cnnDim], w.b1[i], x[r*projDim+i*cnnDim:r*projDim+(i+1)*cnnDim])
		}
		// feature block i = relu(window(h)·W2 + b2) + h
		windows(ws.col, k, segs, br, h, cnnDim, m)
		off := embDim + i*cnnDim
		gemm(m, ws.col, k, w.w2[i], feats[off:], featDim)
		for r := range rows {
			vecResidual(feats[r*featDim+off:r*featDim+off+cnnDim], w.b2[i], h[r*cnnDim:(r+1)*cnnDim])
		}
	}

	// Layer norm over all 1280 features, then the core rows of each
	// segment are added to its text's pool, in order.
	r = 0
	for _, s := range segs {
		p := pooled[s.text*featDim : (s.text+1)*featDim]
		for t := s.lo; t < s.hi; t, r = t+1, r+1 {
			fr := feats[r*featDim : (r+1)*featDim]
			if t < s.coreLo || t >= s.coreHi {
				continue
			}
			layerNorm(fr, w.lnG, w.lnB, w.eps)
			vecAddTo(p, fr)
		}
	}
}

// windows writes, for each row t of the batch, the n-gram window of src
// rows t-left … t-left+width-1 into row t of col. The window is zero where
// it leaves t's segment. A row of col holds k = width·cnnDim values. src
// rows are ld apart, and each contributes its first cnnDim values. Padding
// rows up to m are zeroed.
func windows(col []float32, k int, segs []segment, br branch, src []float32, ld, m int) {
	r := 0
	for _, s := range segs {
		n := s.hi - s.lo
		for t := range n {
			dst := col[(r+t)*k : (r+t+1)*k]
			for o := range br.width {
				d := dst[o*cnnDim : (o+1)*cnnDim]
				if u := t - br.left + o; u >= 0 && u < n {
					copy(d, src[(r+u)*ld:(r+u)*ld+cnnDim])
				} else {
					clear(d)
				}
			}
		}
		r += n
	}
	clear(col[r*k : m*k])
}

// layerNorm normalises x in place to zero mean and unit biased variance,
// then scales by g and shifts by b:
//
//	x = (x - mean) · 1/sqrt(var + eps) · g + b
//
// The mean and the variance are accumulated in float64, as sumLanes and
// centerLanes do. Everything else is float32, rounded after each operation.
func layerNorm(x, g, b []float32, eps float32) {
	n := float64(len(x))
	s := vecSumLanes(x)
	mean := float32(sumOf(&s) / n)
	v := vecCenterLanes(x, mean)
	variance := float32(sumOf(&v) / n)
	inv := 1 / float32(math.Sqrt(float64(variance+eps)))
	vecScaleShift(x, inv, g, b)
}

// head maps the pooled features of texts to their vectors. The features are
// the nt rows of pooled, a multiple of rowBlock. lens are the texts' token
// counts.
func (w *weights) head(ws *workspace, pooled []float32, nt int, lens []int, out [][]float32) {
	ws.mean = grow(ws.mean, nt*embDim)
	ws.y0 = grow(ws.y0, nt*hidDim)
	ws.y1 = grow(ws.y1, nt*hidDim)
	ws.t1 = grow(ws.t1, nt*hidDim)
	ws.y2 = grow(ws.y2, nt*embDim)
	ws.z = grow(ws.z, nt*embDim)
	ws.t2 = grow(ws.t2, nt*embDim)

	// Sum pooling through the output projection, divided by √n: (Σ_t f_t·W
	// + n·b) / √n. The sum is taken before the projection, since they
	// commute.
	gemm(nt, pooled, featDim, w.cnnW, ws.mean, embDim)
	for i, n := range lens {
		fn := float32(n)
		inv := 1 / float32(math.Sqrt(float64(fn)))
		row := ws.mean[i*embDim : (i+1)*embDim]
		for k, v := range row {
			row[k] = (v + float32(fn*w.cnnB[k])) * inv
		}
	}
	// The dense layers:
	//
	//	y0 = relu(mean·D0)
	//	y1 = relu(mean·P1 + y0·D1)
	//	y2 = relu(y1·D2)
	//	z  = tanh(y1·P3 + y2·D3)
	gemm(nt, ws.mean, embDim, w.d0, ws.y0, hidDim)
	reluAll(ws.y0)
	gemm(nt, ws.mean, embDim, w.p1, ws.y1, hidDim)
	gemm(nt, ws.y0, hidDim, w.d1, ws.t1, hidDim)
	vecAddTo(ws.y1, ws.t1)
	reluAll(ws.y1)
	gemm(nt, ws.y1, hidDim, w.d2, ws.y2, embDim)
	reluAll(ws.y2)
	gemm(nt, ws.y1, hidDim, w.p3, ws.z, embDim)
	gemm(nt, ws.y2, embDim, w.d3, ws.t2, embDim)
	for i := range lens {
		z := ws.z[i*embDim : (i+1)*embDim]
		t2 := ws.t2[i*embDim : (i+1)*embDim]
		v := make([]float32, Dim)
		for k := range v {
			v[k] = float32(math.Tanh(float64(z[k] + t2[k])))
		}
		embed.Normalize(v)
		out[i] = v
	}
}

func reluAll(x []float32) {
	for i, v := range x {
		x[i] = relu(v)
	}
}
