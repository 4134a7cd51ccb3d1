import type { MeConfig } from "./api";

/** The club theme as CSS custom properties on the root; light mode swaps background and text when the host prefers it. */
export function applyTheme(theme: MeConfig["theme"], reducedMotion: boolean): void {
  const root = document.documentElement;
  const c = theme.colors;
  const vars: Record<string, string> = {
    "--bg": c.bg,
    "--surface": c.surface,
    "--primary": c.primary,
    "--secondary": c.secondary,
    "--text": c.text,
    "--muted": c.muted,
    "--success": c.success,
    "--warning": c.warning,
    "--danger": c.danger,
    "--radius": `${theme.radius}px`,
  };
  // A forced light or dark scheme keeps the club's brand colours but not its background and text colours.
  const forced = root.dataset.scheme === "light" || root.dataset.scheme === "dark";
  for (const [name, value] of Object.entries(vars)) {
    if (forced && ["--bg", "--surface", "--text", "--muted"].includes(name)) continue;
    root.style.setProperty(name, value);
  }
  if (theme.font) root.style.setProperty("--font", `${JSON.stringify(theme.font)}, system-ui, sans-serif`);
  root.dataset.cardStyle = theme.cardStyle;
  root.dataset.buttonStyle = theme.buttonStyle;
  // An `image` background without a picture falls back to the solid colour rather than an empty layer.
  root.dataset.background = theme.background === "image" && !theme.backgroundImage ? "solid" : theme.background;
  if (theme.background === "image" && theme.backgroundImage) root.style.setProperty("--bg-image", `url(${JSON.stringify(theme.backgroundImage)})`);
  root.dataset.badgeSet = theme.badgeSet;
  root.dataset.illustrationStyle = theme.illustrationStyle;
  root.dataset.glow = String(theme.glow);
  root.dataset.motion = reducedMotion ? "none" : theme.motionLevel;
}

export function prefersReducedMotion(): boolean {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}
