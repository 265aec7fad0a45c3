// Command plot draws segdist's throughput curve: ns per pair against batch
// size (log scale), one line per path and precision, with the StreamOnly
// memory floor and, when their rows are there, the C and archsimd peers
// of bench/peers, from the rows `go run ./bench -sweep -json` prints (and
// bench/peers' TestPeersSweep appends):
//
//	go run ./bench -sweep -json > sweep.json
//	cd plot && go run . -in ../sweep.json -out ../throughput.png -cpu "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
//
// (`make plot` runs both.) It is a module of its own so that users of
// segdist never see gonum in their module graph.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"io"
	"os"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// row is the part of a bench -json row the picture needs.
type row struct {
	ISA       string  `json:"isa"`
	Kernel    string  `json:"kernel"`
	Pairs     int     `json:"pairs"`
	NsPerPair float64 `json:"ns_per_pair"`
	Precision string  `json:"precision"`
}

func main() {
	in := flag.String("in", "-", "the bench -sweep -json rows (- for stdin)")
	out := flag.String("out", "throughput.png", "the PNG to write")
	cpu := flag.String("cpu", "", "the CPU to name in the title")
	flag.Parse()
	r := io.Reader(os.Stdin)
	if *in != "-" {
		f, err := os.Open(*in)
		check(err)
		defer f.Close()
		r = f
	}
	rows, err := readRows(r)
	check(err)
	p, err := makePlot(rows, strings.TrimSpace(*cpu))
	check(err)
	check(p.Save(9*vg.Inch, 5.5*vg.Inch, *out))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
}

// readRows reads JSON rows, one per line, keeping closest and stream rows.
func readRows(r io.Reader) ([]row, error) {
	var rows []row
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var x row
		if err := json.Unmarshal([]byte(line), &x); err != nil {
			return nil, fmt.Errorf("row %q: %v", line, err)
		}
		if (x.Kernel == "closest" || x.Kernel == "stream") && x.Pairs > 0 && x.NsPerPair > 0 {
			if x.Precision == "" {
				x.Precision = "float32"
			}
			rows = append(rows, x)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no closest or stream rows: run go run ./bench -sweep -json")
	}
	return rows, sc.Err()
}

// makePlot makes the picture: a line per (path, precision) for BatchClosest
// (float64 with triangles) and a dashed one per (path, precision) for
// StreamOnly, the memory floor (float64 dotted).
func makePlot(rows []row, cpu string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "segdist BatchClosest: ns per pair against batch size"
	if cpu != "" {
		p.Title.Text += " (" + cpu + ", one core)"
	}
	p.X.Label.Text = "pairs per batch"
	p.Y.Label.Text = "ns per pair (lower is faster)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Scale = plot.LogScale{} // pure Go is 25-40x the SIMD paths
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	type key struct{ kernel, isa, prec string }
	series := map[key]plotter.XYs{}
	for _, r := range rows {
		if r.Kernel == "stream" && r.ISA == "go" {
			continue // the floor that matters is the vector paths'
		}
		k := key{r.Kernel, r.ISA, r.Precision}
		series[k] = append(series[k], plotter.XY{X: float64(r.Pairs), Y: r.NsPerPair})
	}
	keys := make([]key, 0, len(series))
	for k := range series {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].kernel != keys[j].kernel {
			return keys[i].kernel < keys[j].kernel
		}
		if keys[i].isa != keys[j].isa {
			return keys[i].isa < keys[j].isa
		}
		return keys[i].prec < keys[j].prec
	})
	colors := map[string]color.Color{
		"avx512": color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		"avx2":   color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		"neon":   color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		"go":     color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
		// The peers of bench/peers (make plot adds them when gcc is there).
		"c-avx512":        color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		"c-avx2":          color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
		"archsimd-avx512": color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	}
	for _, k := range keys {
		xy := series[k]
		sort.Slice(xy, func(i, j int) bool { return xy[i].X < xy[j].X })
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		c, ok := colors[k.isa]
		if !ok {
			c = color.Black
		}
		line.Color, points.Color = c, c
		name := fmt.Sprintf("%s %s", k.isa, k.prec)
		if k.prec == "float64" { // the same colour, triangles
			points.Shape = draw.TriangleGlyph{}
		}
		if strings.HasPrefix(k.isa, "c-") || strings.HasPrefix(k.isa, "archsimd") { // peers: squares, dash-dot
			points.Shape = draw.BoxGlyph{}
			line.Dashes = []vg.Length{vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)}
			name += " (peer)"
		}
		if k.kernel == "stream" {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			if k.prec == "float64" {
				line.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
			}
			points.Radius = vg.Points(1.5)
			name = fmt.Sprintf("memory floor (StreamOnly) %s %s", k.isa, k.prec)
		}
		p.Add(line, points)
		p.Legend.Add(name, line, points)
	}
	// Room above the slowest line for the legend (log scale: a factor).
	p.Y.Max *= 30
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(10)
	return p, nil
}
