import type { MeConfig } from "./api";

/** Numbers and amounts, with Intl in the widget's locale. Amounts are integers in the currency's minor units. */
export function formatters(locale: string, config: MeConfig | null) {
  const number = new Intl.NumberFormat(locale);
  const currencyOf = (code: string) => config?.currencies.find((currency) => currency.code === code);
  return {
    number: (value: number) => number.format(value),
    amount(minor: number, code: string): string {
      const currency = currencyOf(code);
      const decimals = currency?.decimals ?? 0;
      const value = new Intl.NumberFormat(locale, { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(minor / 10 ** decimals);
      return `${value} ${currency?.name ?? code}`;
    },
    /** Real money in cents (cashback), in the club's currency (BRL, the seed's). */
    money: (cents: number, currency = "BRL") => new Intl.NumberFormat(locale, { style: "currency", currency }).format(cents / 100),
    date: (iso: string) => new Intl.DateTimeFormat(locale, { dateStyle: "medium" }).format(new Date(iso)),
  };
}

export type Formatters = ReturnType<typeof formatters>;
