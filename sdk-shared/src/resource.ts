import type { Requester } from "./request.js";

/** The base of every generated resource class: they only describe calls; the requester sends them. */
export abstract class Resource {
  /** @internal */
  protected readonly _request: Requester;

  constructor(request: Requester) {
    this._request = request;
  }
}
