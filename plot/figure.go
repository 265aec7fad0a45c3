package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The figure's size and resolution, and the width of the legend column
// to the right of the panels.
const (
	figWidth    = 12 * vg.Inch
	figHeight   = 5.6 * vg.Inch
	figDPI      = 110
	legendWidth = 2.75 * vg.Inch
	titleHeight = 0.45 * vg.Inch
)

// A path's colour is the same in both panels and for every kind of line.
var pathColors = map[string]color.Color{
	"avx512": color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"avx2":   color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"neon":   color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	"go":     color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff},
	// The peers of bench/peers (make plot adds them when gcc is there).
	"c-avx512":        color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	"c-avx2":          color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
	"archsimd-avx512": color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
}

// pathNames are the legend's names of the paths; pathOrder is the legend's
// order (segdist's paths, fastest first, then the peers).
var (
	pathNames = map[string]string{
		"avx512":          "AVX-512",
		"avx2":            "AVX2",
		"neon":            "NEON",
		"go":              "pure Go",
		"c-avx512":        "C intrinsics, AVX-512",
		"c-avx2":          "C intrinsics, AVX2",
		"archsimd-avx512": "Go archsimd, AVX-512",
	}
	pathOrder = []string{"avx512", "avx2", "neon", "go", "c-avx512", "c-avx2", "archsimd-avx512"}
)

// floorPaths are the paths whose StreamOnly may stand for the memory
// floor, in order of preference: the widest vector path there is. One
// floor per panel is enough: streaming is bound by the memory, not the
// path, and the vector paths' floors lie on top of each other.
var floorPaths = []string{"avx512", "avx2", "neon"}

// kind is what a line shows; each kind has its own line style.
type kind int

const (
	kernelLine kind = iota // one of segdist's paths
	peerLine               // a peer of bench/peers
	floorLine              // StreamOnly, the memory floor
)

// series is one line of a panel.
type series struct {
	isa  string
	kind kind
	xys  plotter.XYs
}

// panel is one precision's data.
type panel struct {
	precision, title string
	lines            []series
}

// isPeer reports whether isa names a peer (bench/peers) rather than one of
// segdist's paths.
func isPeer(isa string) bool {
	return strings.HasPrefix(isa, "c-") || strings.HasPrefix(isa, "archsimd")
}

// panels sorts rows into one panel per precision that has rows, float32
// first: a line per path (closest rows) and the memory floor (the stream
// rows of the first of floorPaths that has them).
func panels(rows []row) []panel {
	var out []panel
	for _, prec := range []string{"float32", "float64"} {
		closest := map[string]plotter.XYs{}
		stream := map[string]plotter.XYs{}
		for _, r := range rows {
			if r.Precision != prec {
				continue
			}
			xy := plotter.XY{X: float64(r.Pairs), Y: r.NsPerPair}
			switch r.Kernel {
			case "closest":
				closest[r.ISA] = append(closest[r.ISA], xy)
			case "stream":
				stream[r.ISA] = append(stream[r.ISA], xy)
			}
		}
		if len(closest) == 0 {
			continue
		}
		p := panel{precision: prec, title: prec + ": BatchClosest"}
		if prec == "float64" {
			p.title += "64"
		}
		for _, isa := range sortedPaths(closest) {
			k := kernelLine
			if isPeer(isa) {
				k = peerLine
			}
			p.lines = append(p.lines, series{isa: isa, kind: k, xys: byX(closest[isa])})
		}
		for _, isa := range floorPaths {
			if xys, ok := stream[isa]; ok {
				p.lines = append(p.lines, series{isa: isa, kind: floorLine, xys: byX(xys)})
				break
			}
		}
		out = append(out, p)
	}
	return out
}

// sortedPaths returns the keys of m in pathOrder, unknown paths last by
// name.
func sortedPaths(m map[string]plotter.XYs) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	rank := func(isa string) int {
		if i := slices.Index(pathOrder, isa); i >= 0 {
			return i
		}
		return len(pathOrder)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return keys
}

func byX(xys plotter.XYs) plotter.XYs {
	slices.SortFunc(xys, func(a, b plotter.XY) int {
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	return xys
}

// style makes the line and glyphs of s: the path's colour; solid with
// dots for a kernel, dash-dot with squares for a peer, dotted without
// glyphs for the memory floor.
func style(s series) (*plotter.Line, *plotter.Scatter, error) {
	line, points, err := plotter.NewLinePoints(s.xys)
	if err != nil {
		return nil, nil, err
	}
	c, ok := pathColors[s.isa]
	if !ok {
		c = color.Black
	}
	line.Color, points.Color = c, c
	line.Width = vg.Points(1.6)
	points.Shape = draw.CircleGlyph{}
	points.Radius = vg.Points(2.6)
	switch s.kind {
	case peerLine:
		line.Width = vg.Points(1.3)
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)}
		points.Shape = draw.BoxGlyph{}
		points.Radius = vg.Points(2.2)
	case floorLine:
		line.Width = vg.Points(1.8)
		line.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
		points.Radius = 0
	}
	return line, points, nil
}

// legendName is the legend entry of s.
func legendName(s series) string {
	name, ok := pathNames[s.isa]
	if !ok {
		name = s.isa
	}
	switch s.kind {
	case kernelLine:
		return "segdist, " + name
	case peerLine:
		return "peer: " + name
	}
	return "memory floor, " + name
}

// cacheMark is where a batch of one precision outgrows one data cache.
type cacheMark struct {
	name  string
	pairs float64
}

// cacheMarks returns, for one precision, the batch sizes at which a
// batch's pairs and results fill each data cache of m; none when m does
// not say.
func cacheMarks(m machine, precision string) []cacheMark {
	per := m.PairBytes[precision]
	if per <= 0 {
		return nil
	}
	var marks []cacheMark
	for _, c := range []struct {
		name  string
		bytes int
	}{{"L1d", m.L1D}, {"L2", m.L2}, {"L3", m.L3}} {
		if c.bytes > 0 {
			marks = append(marks, cacheMark{c.name, float64(c.bytes) / float64(per)})
		}
	}
	return marks
}

// pow2Ticks marks every power of two between min and max, labelled every
// step-th one from 2^lowest on, minor ticks between.
type pow2Ticks struct {
	label  func(v float64) string
	lowest int // the exponent of a labelled tick
	step   int // the exponents between two labelled ticks
}

func (t pow2Ticks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log2(min))); e <= int(math.Ceil(math.Log2(max))); e++ {
		v := math.Ldexp(1, e)
		if v < min || v > max {
			continue
		}
		tk := plot.Tick{Value: v}
		if (e-t.lowest)%t.step == 0 {
			tk.Label = t.label(v)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// sizeLabel writes a batch size as 16, 256, 4K, 1M (K = 1024).
func sizeLabel(v float64) string {
	n := int(v)
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "K"
	}
	return strconv.Itoa(n)
}

// nsLabel writes a time: 0.25, 0.5, 1, 2.
func nsLabel(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// bytesLabel writes a cache size: 48 KiB, 1 MiB.
func bytesLabel(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " B"
}

// textStyle is the default font at size pt, left and bottom aligned.
func textStyle(pt vg.Length, c color.Color) text.Style {
	return text.Style{
		Color:   c,
		Font:    font.From(plot.DefaultFont, pt),
		Handler: plot.DefaultTextHandler,
	}
}

// makePanel makes the plot of one panel with y range [ymin, ymax] and
// x range [xmin, xmax], with the cache marks of m.
func makePanel(pn panel, m machine, xmin, xmax, ymin, ymax float64, yLabel bool) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text = "pairs per batch (K = 1024)"
	if yLabel {
		p.Y.Label.Text = "ns per pair (lower is faster)"
	}
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax
	p.X.Tick.Marker = pow2Ticks{label: sizeLabel, lowest: 4, step: 2}
	p.Y.Tick.Marker = pow2Ticks{label: nsLabel, lowest: 0, step: 1}
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Tick.Label.Font.Size = vg.Points(10.5)
		a.Label.TextStyle.Font.Size = vg.Points(11.5)
	}

	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xe4}
	grid.Horizontal.Color = color.Gray{Y: 0xe4}
	p.Add(grid)

	// The cache marks: a grey vertical line each, named at the top.
	markColor := color.Gray{Y: 0x90}
	for _, mk := range cacheMarks(m, pn.precision) {
		if mk.pairs < xmin || mk.pairs > xmax {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: mk.pairs, Y: ymin}, {X: mk.pairs, Y: ymax}})
		if err != nil {
			return nil, err
		}
		l.Color = markColor
		l.Width = vg.Points(1)
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		lb, err := plotter.NewLabels(plotter.XYLabels{
			XYs:    plotter.XYs{{X: mk.pairs, Y: ymax}},
			Labels: []string{mk.name},
		})
		if err != nil {
			return nil, err
		}
		lb.TextStyle[0] = textStyle(vg.Points(10), color.Gray{Y: 0x60})
		lb.TextStyle[0].YAlign = text.YTop
		lb.Offset = vg.Point{X: vg.Points(3), Y: -vg.Points(3)}
		p.Add(l, lb)
	}

	for _, s := range pn.lines {
		line, points, err := style(s)
		if err != nil {
			return nil, err
		}
		p.Add(line)
		if points.Radius > 0 {
			p.Add(points)
		}
	}
	return p, nil
}

// drawFigure writes the PNG: a title over the panels, one panel per
// precision side by side on the same axes, and the legend with a note on
// the cache marks in a column of its own to the right.
func drawFigure(w io.Writer, rows []row, m machine, commit string) error {
	// Sans-serif reads better than gonum's default serif at these sizes.
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
	pns := panels(rows)
	if len(pns) == 0 {
		return fmt.Errorf("no closest rows")
	}
	// Shared ranges, so that the panels compare at a glance: half a power
	// of two of room around the data.
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, pn := range pns {
		for _, s := range pn.lines {
			for _, xy := range s.xys {
				xmin, xmax = math.Min(xmin, xy.X), math.Max(xmax, xy.X)
				ymin, ymax = math.Min(ymin, xy.Y), math.Max(ymax, xy.Y)
			}
		}
	}
	xmin, xmax = xmin/math.Sqrt2, xmax*math.Sqrt2
	ymin, ymax = ymin/math.Sqrt2, ymax*math.Sqrt2

	plots := make([]*plot.Plot, len(pns))
	for i, pn := range pns {
		p, err := makePanel(pn, m, xmin, xmax, ymin, ymax, i == 0)
		if err != nil {
			return err
		}
		plots[i] = p
	}

	img := vgimg.NewWith(vgimg.UseWH(figWidth, figHeight), vgimg.UseDPI(figDPI))
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	// The title: what is plotted, then the machine, the day and the commit.
	top := dc.Max.Y - vg.Points(8)
	t1 := textStyle(vg.Points(15), color.Black)
	t1.YAlign = text.YTop
	dc.FillText(t1, vg.Point{X: dc.Min.X + vg.Points(12), Y: top},
		"segdist: ns per segment pair against batch size, one core")
	t2 := textStyle(vg.Points(12), color.Gray{Y: 0x30})
	t2.YAlign = text.YTop
	dc.FillText(t2, vg.Point{X: dc.Min.X + vg.Points(12), Y: top - vg.Points(22)}, subtitle(m, commit))

	body := draw.Crop(dc, 0, -legendWidth, 0, -titleHeight)
	tiles := draw.Tiles{
		Rows: 1, Cols: len(plots),
		PadX: vg.Points(14), PadLeft: vg.Points(6), PadRight: vg.Points(6),
		PadTop: vg.Points(26), PadBottom: vg.Points(6),
	}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, body)
	pt := textStyle(vg.Points(13), color.Black)
	pt.XAlign = text.XCenter
	for i, p := range plots {
		p.Draw(canvases[0][i])
		// The panel's title, centred over its data.
		data := p.DataCanvas(canvases[0][i])
		dc.FillText(pt, vg.Point{X: (data.Min.X + data.Max.X) / 2, Y: data.Max.Y + vg.Points(8)}, pns[i].title)
	}

	// The legend column: an entry per path and kind, from every panel.
	lg := plot.NewLegend()
	lg.TextStyle = textStyle(vg.Points(11), color.Black)
	lg.Top, lg.Left = true, true
	lg.ThumbnailWidth = vg.Points(34)
	lg.Padding = vg.Points(4)
	seen := map[string]bool{}
	var entries []series
	for _, pn := range pns {
		for _, s := range pn.lines {
			if name := legendName(s); !seen[name] {
				seen[name] = true
				entries = append(entries, s)
			}
		}
	}
	// Kernels, then peers, then the floor.
	slices.SortStableFunc(entries, func(a, b series) int { return int(a.kind) - int(b.kind) })
	for _, s := range entries {
		line, points, err := style(s)
		if err != nil {
			return err
		}
		if points.Radius > 0 {
			lg.Add(legendName(s), line, points)
		} else {
			lg.Add(legendName(s), line)
		}
	}
	col := draw.Crop(dc, figWidth-legendWidth+vg.Points(4), -vg.Points(8), 0, -titleHeight-vg.Points(34))
	lg.Draw(col)

	// Under the legend: what the vertical marks and the peers mean.
	notes := []string{
		"Memory floor: StreamOnly, which loads",
		"and stores a batch's bytes, no math.",
	}
	if m.PairBytes["float32"] > 0 && m.L1D+m.L2+m.L3 > 0 {
		notes = append(notes, "", "Grey dashed marks: where a batch's")
		notes = append(notes, "pairs and results fill one core's")
		notes = append(notes, cachesNote(m)+".")
		notes = append(notes, pairBytesNote(m)+".")
	}
	if len(pns) > 1 && slices.ContainsFunc(pns[0].lines, func(s series) bool { return s.kind == peerLine }) {
		notes = append(notes, "", "The peers run float32 only.")
	}
	ns := textStyle(vg.Points(10), color.Gray{Y: 0x40})
	ns.YAlign = text.YTop
	y := lg.Rectangle(col).Min.Y - vg.Points(18)
	for _, l := range notes {
		dc.FillText(ns, vg.Point{X: col.Min.X, Y: y}, l)
		y -= vg.Points(13.5)
	}

	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// subtitle names the machine, the day of the sweep and the commit.
func subtitle(m machine, commit string) string {
	cpu := strings.TrimSpace(m.CPU)
	if cpu == "" {
		cpu = "unknown CPU"
	}
	if m.Family > 0 {
		cpu += fmt.Sprintf(" (family %d, model %d)", m.Family, m.Model)
	}
	parts := []string{cpu}
	if m.Date != "" {
		parts = append(parts, "measured "+m.Date)
	}
	if commit != "" {
		parts = append(parts, "commit "+commit)
	}
	return strings.Join(parts, "  ·  ")
}

// pairBytesNote says the bytes of one pair per precision: "A pair: 60 B
// in float32, 120 B in float64".
func pairBytesNote(m machine) string {
	s := fmt.Sprintf("A pair: %d B in float32", m.PairBytes["float32"])
	if b := m.PairBytes["float64"]; b > 0 {
		s += fmt.Sprintf(", %d B in float64", b)
	}
	return s
}

// cachesNote lists the caches: "L1d 48 KiB, L2 1 MiB, L3 32 MiB".
func cachesNote(m machine) string {
	var parts []string
	for _, c := range []struct {
		name  string
		bytes int
	}{{"L1d", m.L1D}, {"L2", m.L2}, {"L3", m.L3}} {
		if c.bytes > 0 {
			parts = append(parts, c.name+" "+bytesLabel(c.bytes))
		}
	}
	return strings.Join(parts, ", ")
}
