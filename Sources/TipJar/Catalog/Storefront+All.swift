extension Storefront {
    /// Every App Store storefront: the 175 countries and regions where the App Store sells apps and in-app
    /// purchases, in alphabetical order of country code. ``named(_:)`` knows exactly these.
    ///
    /// Sources:
    /// - The list of countries and regions: App Store Connect Help, "App Store pricing and availability start
    ///   times by country or region",
    ///   https://developer.apple.com/help/app-store-connect/reference/app-store-pricing-and-availability-start-times-by-country-or-region
    ///   ("175 countries or regions": App Store Connect Help, "Manage availability for your app on the App Store",
    ///   https://developer.apple.com/help/app-store-connect/manage-your-apps-availability/manage-availability-for-your-app-on-the-app-store).
    /// - The codes: ISO 3166-1 alpha-3, as StoreKit's `Storefront.countryCode` returns them
    ///   (https://developer.apple.com/documentation/storekit/storefront/countrycode) and as the App Store Connect
    ///   API names territories (https://developer.apple.com/documentation/appstoreconnectapi/territory). Kosovo,
    ///   which ISO 3166-1 does not list, is `XKS`, the territory ID App Store Connect uses.
    /// - The currencies: App Store Connect Help, "Financial report regions and currencies",
    ///   https://developer.apple.com/help/app-store-connect/reference/financial-report-regions-and-currencies —
    ///   a country or region with a report region of its own is priced in that region's currency (Bulgaria and
    ///   Croatia in EUR); the Euro-zone region's other countries (and Kosovo, whose legal tender is the euro) in
    ///   EUR; every other storefront (Latin America and the Caribbean, Rest of World, South Asia and Pacific) in
    ///   USD. That is 43 currencies (Bulgaria's move from BGN to the euro took the count Apple long gave, 44,
    ///   down by one).
    /// - The formatting locale: a Foundation locale of the storefront's region whose digits are Latin (`ar_SA`
    ///   would format with Arabic-Indic digits, so Saudi Arabia uses `en_SA`); `en_<region>` where no such locale
    ///   exists. Where the storefront's currency is the region's own, it is the currency Foundation's `Locale`
    ///   gives for that region (StorefrontTests checks this). Cape Verde's `pt_CV` writes its own escudo with `$`
    ///   as the decimal separator (`1$50`, CLDR's `pt_CV` currency format) and Foundation applies that to every
    ///   currency (`0$99 US$`), so Cape Verde uses `pt_CV@currency=USD`, which keeps the region and formats
    ///   `0,99 US$` (StorefrontTests formats 0.99 in every storefront to check the separator).
    public static let all: [Storefront] = [
        ("AFG", "USD", "en_AF"), ("AGO", "USD", "pt_AO"), ("AIA", "USD", "en_AI"), ("ALB", "USD", "sq_AL"),
        ("ARE", "AED", "en_AE"), ("ARG", "USD", "es_AR"), ("ARM", "USD", "hy_AM"), ("ATG", "USD", "en_AG"),
        ("AUS", "AUD", "en_AU"), ("AUT", "EUR", "de_AT"), ("AZE", "USD", "az_AZ"), ("BEL", "EUR", "nl_BE"),
        ("BEN", "USD", "fr_BJ"), ("BFA", "USD", "fr_BF"), ("BGR", "EUR", "bg_BG"), ("BHR", "USD", "en_BH"),
        ("BHS", "USD", "en_BS"), ("BIH", "EUR", "bs_BA"), ("BLR", "USD", "be_BY"), ("BLZ", "USD", "en_BZ"),
        ("BMU", "USD", "en_BM"), ("BOL", "USD", "es_BO"), ("BRA", "BRL", "pt_BR"), ("BRB", "USD", "en_BB"),
        ("BRN", "USD", "ms_BN"), ("BTN", "USD", "en_BT"), ("BWA", "USD", "en_BW"), ("CAN", "CAD", "en_CA"),
        ("CHE", "CHF", "de_CH"), ("CHL", "CLP", "es_CL"), ("CHN", "CNY", "zh_CN"), ("CIV", "USD", "fr_CI"),
        ("CMR", "USD", "fr_CM"), ("COD", "USD", "fr_CD"), ("COG", "USD", "fr_CG"), ("COL", "COP", "es_CO"),
        ("CPV", "USD", "pt_CV@currency=USD"), ("CRI", "USD", "es_CR"), ("CYM", "USD", "en_KY"), ("CYP", "EUR", "el_CY"),
        ("CZE", "CZK", "cs_CZ"), ("DEU", "EUR", "de_DE"), ("DMA", "USD", "en_DM"), ("DNK", "DKK", "da_DK"),
        ("DOM", "USD", "es_DO"), ("DZA", "USD", "fr_DZ"), ("ECU", "USD", "es_EC"), ("EGY", "EGP", "en_EG"),
        ("ESP", "EUR", "es_ES"), ("EST", "EUR", "et_EE"), ("FIN", "EUR", "fi_FI"), ("FJI", "USD", "en_FJ"),
        ("FRA", "EUR", "fr_FR"), ("FSM", "USD", "en_FM"), ("GAB", "USD", "fr_GA"), ("GBR", "GBP", "en_GB"),
        ("GEO", "USD", "ka_GE"), ("GHA", "USD", "en_GH"), ("GMB", "USD", "en_GM"), ("GNB", "USD", "pt_GW"),
        ("GRC", "EUR", "el_GR"), ("GRD", "USD", "en_GD"), ("GTM", "USD", "es_GT"), ("GUY", "USD", "en_GY"),
        ("HKG", "HKD", "zh_HK"), ("HND", "USD", "es_HN"), ("HRV", "EUR", "hr_HR"), ("HUN", "HUF", "hu_HU"),
        ("IDN", "IDR", "id_ID"), ("IND", "INR", "en_IN"), ("IRL", "EUR", "en_IE"), ("IRQ", "USD", "en_IQ"),
        ("ISL", "USD", "is_IS"), ("ISR", "ILS", "he_IL"), ("ITA", "EUR", "it_IT"), ("JAM", "USD", "en_JM"),
        ("JOR", "USD", "en_JO"), ("JPN", "JPY", "ja_JP"), ("KAZ", "KZT", "kk_KZ"), ("KEN", "USD", "en_KE"),
        ("KGZ", "USD", "ky_KG"), ("KHM", "USD", "km_KH"), ("KNA", "USD", "en_KN"), ("KOR", "KRW", "ko_KR"),
        ("KWT", "USD", "en_KW"), ("LAO", "USD", "lo_LA"), ("LBN", "USD", "en_LB"), ("LBR", "USD", "en_LR"),
        ("LBY", "USD", "en_LY"), ("LCA", "USD", "en_LC"), ("LKA", "USD", "si_LK"), ("LTU", "EUR", "lt_LT"),
        ("LUX", "EUR", "fr_LU"), ("LVA", "EUR", "lv_LV"), ("MAC", "USD", "zh_MO"), ("MAR", "USD", "fr_MA"),
        ("MDA", "USD", "ro_MD"), ("MDG", "USD", "fr_MG"), ("MDV", "USD", "en_MV"), ("MEX", "MXN", "es_MX"),
        ("MKD", "USD", "mk_MK"), ("MLI", "USD", "fr_ML"), ("MLT", "EUR", "mt_MT"), ("MMR", "USD", "en_MM"),
        ("MNE", "EUR", "sr_Latn_ME"), ("MNG", "USD", "mn_MN"), ("MOZ", "USD", "pt_MZ"), ("MRT", "USD", "fr_MR"),
        ("MSR", "USD", "en_MS"), ("MUS", "USD", "en_MU"), ("MWI", "USD", "en_MW"), ("MYS", "MYR", "ms_MY"),
        ("NAM", "USD", "en_NA"), ("NER", "USD", "fr_NE"), ("NGA", "NGN", "en_NG"), ("NIC", "USD", "es_NI"),
        ("NLD", "EUR", "nl_NL"), ("NOR", "NOK", "nb_NO"), ("NPL", "USD", "en_NP"), ("NRU", "USD", "en_NR"),
        ("NZL", "NZD", "en_NZ"), ("OMN", "USD", "en_OM"), ("PAK", "PKR", "en_PK"), ("PAN", "USD", "es_PA"),
        ("PER", "PEN", "es_PE"), ("PHL", "PHP", "en_PH"), ("PLW", "USD", "en_PW"), ("PNG", "USD", "en_PG"),
        ("POL", "PLN", "pl_PL"), ("PRT", "EUR", "pt_PT"), ("PRY", "USD", "es_PY"), ("QAT", "QAR", "en_QA"),
        ("ROU", "RON", "ro_RO"), ("RUS", "RUB", "ru_RU"), ("RWA", "USD", "en_RW"), ("SAU", "SAR", "en_SA"),
        ("SEN", "USD", "fr_SN"), ("SGP", "SGD", "en_SG"), ("SLB", "USD", "en_SB"), ("SLE", "USD", "en_SL"),
        ("SLV", "USD", "es_SV"), ("SRB", "EUR", "sr_RS"), ("STP", "USD", "pt_ST"), ("SUR", "USD", "nl_SR"),
        ("SVK", "EUR", "sk_SK"), ("SVN", "EUR", "sl_SI"), ("SWE", "SEK", "sv_SE"), ("SWZ", "USD", "en_SZ"),
        ("SYC", "USD", "en_SC"), ("TCA", "USD", "en_TC"), ("TCD", "USD", "fr_TD"), ("THA", "THB", "th_TH"),
        ("TJK", "USD", "tg_TJ"), ("TKM", "USD", "tk_TM"), ("TON", "USD", "to_TO"), ("TTO", "USD", "en_TT"),
        ("TUN", "USD", "fr_TN"), ("TUR", "TRY", "tr_TR"), ("TWN", "TWD", "zh_TW"), ("TZA", "TZS", "sw_TZ"),
        ("UGA", "USD", "en_UG"), ("UKR", "USD", "uk_UA"), ("URY", "USD", "es_UY"), ("USA", "USD", "en_US"),
        ("UZB", "USD", "uz_UZ"), ("VCT", "USD", "en_VC"), ("VEN", "USD", "es_VE"), ("VGB", "USD", "en_VG"),
        ("VNM", "VND", "vi_VN"), ("VUT", "USD", "en_VU"), ("XKS", "EUR", "sq_XK"), ("YEM", "USD", "en_YE"),
        ("ZAF", "ZAR", "en_ZA"), ("ZMB", "USD", "en_ZM"), ("ZWE", "USD", "en_ZW"),
    ].map { Storefront(countryCode: $0.0, currencyCode: $0.1, localeIdentifier: $0.2) }
}
