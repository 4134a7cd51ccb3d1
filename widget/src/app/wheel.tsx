import { useRef, useState } from "preact/hooks";
import { useWidget } from "./context";
import { errorText, Loaded, newKey, Notice, useLoad } from "./load";
import { prefersReducedMotion } from "./theme";
import { VerifySpin } from "./wheel-verify";

const SIZE = 260;
const R = SIZE / 2;

/**
 * The wheel: the server chooses the slice (`POST /v1/me/wheel/spin`), the
 * animation only turns the drawing so that slice stops under the pointer.
 * With reduced motion (browser setting or theme `motionLevel: none`) it
 * jumps there without turning.
 */
export function Wheel() {
  const { api, t, fmt, config, refresh, track } = useWidget();
  const state = useLoad(() => api.me.wheel());
  const [rotation, setRotation] = useState(0);
  const [spinning, setSpinning] = useState(false);
  const [landed, setLanded] = useState<{ id: string; label: string; spinId: string } | null>(null);
  const [notice, setNotice] = useState<{ text: string; error?: boolean } | null>(null);
  const pending = useRef<{ id: string; label: string; spinId: string } | null>(null);
  const slices = config.wheel?.slices ?? [];
  const segment = 360 / Math.max(1, slices.length);
  const still = prefersReducedMotion() || config.theme.motionLevel === "none";

  const finish = () => {
    const result = pending.current;
    if (!result) return;
    pending.current = null;
    setSpinning(false);
    setLanded(result);
    setNotice({ text: t.youWon(result.label) });
    void refresh();
    void state.reload();
  };

  const spin = async () => {
    setSpinning(true);
    setLanded(null);
    setNotice(null);
    try {
      const result = await api.me.spin({ idempotencyKey: newKey("w-spin") });
      const index = Math.max(
        0,
        slices.findIndex((slice) => slice.id === result.sliceId),
      );
      track("wheel.spun", { slice_id: result.sliceId });
      pending.current = { id: result.sliceId, label: result.label, spinId: result.spinId };
      // Whole turns plus the angle that brings the slice's middle to the top, always forward.
      const target = 360 - (index + 0.5) * segment;
      const base = rotation - (rotation % 360);
      setRotation(base + (still ? 360 : 5 * 360) + target);
      if (still) finish();
      else setTimeout(finish, 4000); // in case transitionend never comes (hidden frame)
    } catch (err) {
      setSpinning(false);
      setNotice({ text: errorText(err), error: true });
    }
  };

  return (
    <Loaded state={state}>
      {(wheel) => (
        <div class="stack center">
          <p class="wheel-title">
            <span>{config.wheel?.titleLeft}</span> <span class="accent">{config.wheel?.titleRight}</span>
          </p>
          <div class="wheel-box">
            <span class="pointer" aria-hidden="true">
              ▼
            </span>
            <svg
              class="wheel"
              viewBox={`0 0 ${SIZE} ${SIZE}`}
              role="img"
              aria-label={`${t.wheel}: ${slices.map((slice) => slice.label).join(", ")}`}
              data-testid="wheel"
              data-landed={landed?.id ?? ""}
              style={{ transform: `rotate(${rotation}deg)`, transition: still ? "none" : "transform 3.2s cubic-bezier(.12,.7,.1,1)" }}
              onTransitionEnd={finish}
            >
              {slices.map((slice, index) => {
                const a0 = ((index * segment - 90) * Math.PI) / 180;
                const a1 = (((index + 1) * segment - 90) * Math.PI) / 180;
                const mid = (index + 0.5) * segment;
                const large = segment > 180 ? 1 : 0;
                const path = `M${R},${R} L${R + R * Math.cos(a0)},${R + R * Math.sin(a0)} A${R},${R} 0 ${large} 1 ${R + R * Math.cos(a1)},${R + R * Math.sin(a1)} Z`;
                return (
                  <g key={slice.id} data-slice={slice.id}>
                    <path d={path} class={`slice s${index % 3}`} />
                    <text
                      x={R}
                      y={R * 0.28}
                      class="slice-label"
                      // Labels of the lower half are turned half a turn about their own place, so none reads upside down.
                      transform={`rotate(${mid} ${R} ${R})${mid > 90 && mid < 270 ? ` rotate(180 ${R} ${R * 0.28})` : ""}`}
                      text-anchor="middle"
                      dominant-baseline="middle"
                    >
                      {slice.label}
                    </text>
                  </g>
                );
              })}
            </svg>
          </div>
          <p class="muted">{wheel.spinsLeft > 0 ? t.spinsLeft(fmt.number(wheel.spinsLeft)) : t.noSpins}</p>
          <button class="btn primary" disabled={spinning || wheel.spinsLeft < 1} onClick={() => void spin()}>
            {t.spin}
          </button>
          <p class="result" data-testid="wheel-result" role="status" aria-live="polite">
            {landed ? t.youWon(landed.label) : ""}
          </p>
          {landed ? <VerifySpin key={landed.spinId} spinId={landed.spinId} onRotated={() => void state.reload()} /> : null}
          {notice?.error ? <Notice text={notice.text} error /> : null}
        </div>
      )}
    </Loaded>
  );
}
