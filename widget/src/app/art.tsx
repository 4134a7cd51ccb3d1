import { useId } from "preact/hooks";
import { useWidget } from "./context";

/*
 * The widget's bundled artwork, drawn as inline SVG so it costs no request and
 * follows the club's colours: illustrations (gift, target, trophy, ...) in the
 * theme's `illustrationStyle`, and tier/level badges in its `badgeSet`. Each
 * picture is a few paths on a 64×64 grid, each path painted with one of three
 * inks: 0 the main colour (`--ill-a`), 1 the accent (`--ill-b`), 2 a light tint.
 */
type Part = [0 | 1 | 2, string];

/** A circle as a path, so every shape is a list of paths (one clip path can join them). */
const circle = (cx: number, cy: number, r: number) => `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0Z`;

const SHAPES: Record<string, Part[]> = {
  gift: [
    [0, "M12 30h40v26H12Z"],
    [0, "M8 21h48v11H8Z"],
    [1, "M29 21h6v35h-6Z"],
    [1, "M32 21c-6-10-16-10-14-3 1 3 8 3 14 3Zm0 0c6-10 16-10 14-3-1 3-8 3-14 3Z"],
  ],
  target: [
    [0, circle(30, 34, 26)],
    [2, circle(30, 34, 18)],
    [0, circle(30, 34, 10)],
    [1, circle(30, 34, 4)],
    [1, "M29 33 54 8l3 3-25 25Z"],
    [1, "M50 4h10v10l-4-4Z"],
  ],
  trophy: [
    [1, "M18 12H8c0 10 6 14 12 14v-4c-4 0-7-3-7-6h5Zm28 0h10c0 10-6 14-12 14v-4c4 0 7-3 7-6h-5Z"],
    [0, "M18 6h28v16c0 10-6 16-14 16S18 32 18 22Z"],
    [1, "M28 38h8v9h-8Z"],
    [0, "M17 47h30v10H17Z"],
  ],
  coin: [
    [0, circle(32, 32, 27)],
    [2, circle(32, 32, 20)],
    [1, "M32 17l4 9 10 1-8 7 3 10-9-5-9 5 3-10-8-7 10-1Z"],
  ],
  star: [
    [0, "M32 4l8 18 20 2-15 13 5 20-18-11-18 11 5-20L4 24l20-2Z"],
    [1, circle(32, 33, 6)],
  ],
  wheel: [
    [0, circle(32, 34, 27)],
    [1, "M32 34V7a27 27 0 0 1 27 27Z"],
    [1, "M32 34v27A27 27 0 0 1 5 34Z"],
    [2, circle(32, 34, 6)],
    [2, "M25 0h14l-7 11Z"],
  ],
  calendar: [
    [2, "M8 14h48v42H8Z"],
    [0, "M8 14h48v12H8Z"],
    [1, "M17 7h6v13h-6Zm24 0h6v13h-6Z"],
    [0, "M19 40l8 8 17-17-4-4-13 13-4-4Z"],
  ],
  ticket: [
    [0, "M6 16h52v11a6 6 0 0 0 0 12v11H6V39a6 6 0 0 0 0-12Z"],
    [2, "M40 19h3v28h-3Z"],
    [1, "M14 27h20v4H14Zm0 8h14v4H14Z"],
  ],
  bag: [
    [1, "M21 24v-6a11 11 0 0 1 22 0v6h-4v-6a7 7 0 0 0-14 0v6Z"],
    [0, "M10 22h44l-4 36H14Z"],
    [2, "M24 34h16v4H24Z"],
  ],
  crown: [
    [1, "M6 18l14 12 12-20 12 20 14-12-6 32H12Z"],
    [0, "M12 44h40v10H12Z"],
    [2, circle(32, 30, 4)],
  ],
  fire: [
    [0, "M32 4c4 12 20 18 20 34a20 20 0 0 1-40 0c0-8 4-14 8-18 0 6 4 10 8 10-4-10 0-20 4-26Z"],
    [1, "M32 30c2 6 10 8 10 16a10 10 0 0 1-20 0c0-6 6-10 10-16Z"],
  ],
  medal: [
    [1, "M16 2h11l9 22H25Zm32 0H37l-9 22h11Z"],
    [0, circle(32, 42, 19)],
    [2, circle(32, 42, 12)],
  ],
};

/** Other names a club may write for the same pictures (module names, plurals). */
const ALIASES: Record<string, string> = {
  spins: "wheel",
  roleta: "wheel",
  checkin: "calendar",
  codes: "ticket",
  code: "ticket",
  store: "bag",
  loja: "bag",
  coins: "coin",
  moedas: "coin",
  missions: "target",
  leaderboard: "trophy",
  tournament: "trophy",
  badges: "medal",
  cashback: "coin",
  rewards: "gift",
  referral: "star",
  vip: "crown",
  streak: "fire",
};

const BADGES: Record<string, Part[]> = {
  "spades-3d": [
    [0, "M32 4C22 18 8 26 8 38c0 8 6 13 13 13 4 0 7-2 9-4-1 5-3 9-7 11h18c-4-2-6-6-7-11 2 2 5 4 9 4 7 0 13-5 13-13C56 26 42 18 32 4Z"],
    [2, circle(32, 34, 5)],
  ],
  shields: [
    [1, "M32 2 58 11v19c0 17-11 27-26 33C17 57 6 47 6 30V11Z"],
    [0, "M32 9 51 16v14c0 13-8 21-19 26-11-5-19-13-19-26V16Z"],
    [2, "M32 20l4 8 9 1-7 6 2 9-8-5-8 5 2-9-7-6 9-1Z"],
  ],
  gems: [
    [0, "M18 8h28l16 17-30 35L2 25Z"],
    [2, "M18 8h28l-4 17H22Z"],
    [1, "M2 25h20l10 35Z"],
    [1, "M62 25H42L32 60Z"],
  ],
};

const INK = ["var(--ill-a)", "var(--ill-b)", "color-mix(in srgb,var(--ill-a) 30%,#fff)"];

/**
 * One picture. Flat: plain inks on a soft tile. 3D: inks as top-lit gradients,
 * an extruded side, a gloss and a ground shadow; the same shapes, so both
 * styles cost one set of paths.
 */
function Art(props: { parts: Part[]; depth: boolean; size: number; cls: string; colors?: [string, string] }) {
  const id = useId().replace(/[^\w-]/g, "");
  const { parts, depth, size } = props;
  const all = parts.map((part) => part[1]).join("");
  const style = props.colors ? { "--ill-a": props.colors[0], "--ill-b": props.colors[1] } : undefined;
  return (
    <svg
      class={`${props.cls} ${depth ? "art-3d" : "art-flat"}`}
      width={size}
      height={size}
      viewBox="-4 -4 72 72"
      aria-hidden="true"
      focusable="false"
      style={style}
    >
      {depth ? (
        <>
          <defs>
            {INK.map((ink, index) => (
              <linearGradient key={index} id={`${id}g${index}`} x1="0" y1="0" x2="0" y2="1">
                <stop offset="0" style={{ stopColor: `color-mix(in srgb,${ink} 55%,#fff)` }} />
                <stop offset="1" style={{ stopColor: `color-mix(in srgb,${ink} 62%,#000)` }} />
              </linearGradient>
            ))}
            <clipPath id={`${id}c`}>
              <path d={all} />
            </clipPath>
          </defs>
          <ellipse cx="33" cy="64" rx="24" ry="3.5" fill="#000" opacity=".35" />
          <path d={all} transform="translate(2 4)" style={{ fill: "color-mix(in srgb,var(--ill-a) 40%,#000)" }} />
          {parts.map(([ink, d], index) => (
            <path key={index} d={d} fill={`url(#${id}g${ink})`} />
          ))}
          <ellipse cx="22" cy="12" rx="28" ry="13" fill="#fff" opacity=".3" clip-path={`url(#${id}c)`} />
        </>
      ) : (
        <>
          <rect x="-4" y="-4" width="72" height="72" rx="18" style={{ fill: "color-mix(in srgb,var(--ill-a) 22%,transparent)" }} />
          {parts.map(([ink, d], index) => (
            <path key={index} d={d} style={{ fill: INK[ink] }} />
          ))}
        </>
      )}
    </svg>
  );
}

/**
 * An illustration named by a configuration field (`illustration` of cards,
 * rewards, missions...): a club icon by `id`, an image URL, or one of the
 * bundled pictures drawn in the theme's `illustrationStyle`.
 */
export function Illustration(props: { name: string | null | undefined; size?: number }) {
  const { config } = useWidget();
  const name = props.name || "gift";
  const size = props.size ?? 56;
  const url = config.icons.find((icon) => icon.id === name)?.url ?? (/^(https?:|data:image\/)/.test(name) ? name : null);
  if (url) return <img class="ill" src={url} alt="" width={size} height={size} />;
  const parts = SHAPES[name] ?? SHAPES[ALIASES[name]] ?? SHAPES.star;
  return <Art parts={parts} depth={config.theme.illustrationStyle === "3d"} size={size} cls="ill" />;
}

/**
 * A tier or level badge in the theme's `badgeSet`, in the given colour (the
 * tier's, else the club's primary). `spades-3d` is drawn with depth; shields
 * and gems flat, as their names say.
 */
export function Badge(props: { color?: string | null; size?: number }) {
  const { config } = useWidget();
  const set = config.theme.badgeSet;
  const colors: [string, string] = [props.color || "var(--primary)", "var(--secondary)"];
  return <Art parts={BADGES[set] ?? BADGES.shields} depth={set === "spades-3d"} size={props.size ?? 40} cls={`badge badge-${set}`} colors={colors} />;
}
