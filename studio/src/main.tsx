import { render } from "preact";
// uPlot's own rules are tiny: they ship with the main stylesheet, so the lazily loaded chart needs no CSS of its own.
import "uplot/dist/uPlot.min.css";
import "./styles.css";
import { App } from "./app.js";
import { getState, setState } from "./store.js";

setState({ locale: getState().locale });
render(<App />, document.getElementById("app")!);
