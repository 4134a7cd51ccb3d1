// The rewards domain's public face: what other folders may use of it.
export { confirmDelivery, failDelivery, listDeliveries } from "./deliveries.js";
export { expireCurrencyLots } from "./lot-expiry.js";
export { createPromotionCode, disablePromotionCode, getPromotionCode, hasActiveCodes, listPromotionCodes } from "./promotion-codes.js";
export { redeemCode } from "./redeem-code.js";
export { pricedReward, redeem } from "./redemptions.js";
export { expireRewards } from "./reward-expiry.js";
export { listMyRewards } from "./my-rewards.js";
export { listStore, redeemFromStore } from "./store.js";
