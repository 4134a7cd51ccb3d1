/** Charts with uPlot, loaded only by the Overview screen. */
import uPlot from "uplot";

export function barChart(
  parent: HTMLElement,
  options: { title: string; x: number[]; series: { label: string; values: number[]; color: string }[]; width: number },
): () => void {
  const plot = new uPlot(
    {
      title: options.title,
      width: options.width,
      height: 220,
      scales: { x: { time: true } },
      series: [{}, ...options.series.map((s) => ({ label: s.label, stroke: s.color, fill: `${s.color}33`, width: 2 }))],
      axes: [{}, { size: 50 }],
    },
    [options.x, ...options.series.map((s) => s.values)],
    parent,
  );
  return () => plot.destroy();
}
