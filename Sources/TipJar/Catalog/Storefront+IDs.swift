extension Storefront {
    /// The storefront's App Store storefront identifier, as StoreKit's `Storefront.id`
    /// (https://developer.apple.com/documentation/storekit/storefront/id) and the App Store Server API's
    /// `storefrontId` (https://developer.apple.com/documentation/appstoreserverapi/storefrontid: "An Apple-defined value
    /// that uniquely identifies an App Store storefront", a string, "the same as the `id` value in StoreKit"):
    /// `"143441"` for the United States. `nil` only for a storefront made by hand whose code ``all`` does not hold.
    public var id: String? { Self.ids[countryCode] }

    /// The storefront identifier of every storefront of ``all``, by alpha-3 country code.
    ///
    /// Apple's documentation defines the value but publishes no table of them; the numbers are those of the
    /// alpha-3 table in Apple's MusicKit on the Web library (`musickit.js`,
    /// https://developer.apple.com/documentation/musickitjs), which agree with the storefront IDs App Store clients
    /// send in the `X-Apple-Store-Front` header (e.g. majd/ipatool's `StoreClient.swift`). Kosovo, `XKX` in that
    /// table, is `XKS` here (see ``all``). StorefrontIDTests holds USA, BRA, GBR, JPN and DEU to it and every
    /// storefront of ``all`` to having exactly one, distinct from the others.
    static let ids: [String: String] = [
        "AFG": "143610", "AGO": "143564", "AIA": "143538", "ALB": "143575", "ARE": "143481", "ARG": "143505", "ARM": "143524", "ATG": "143540",
        "AUS": "143460", "AUT": "143445", "AZE": "143568", "BEL": "143446", "BEN": "143576", "BFA": "143578", "BGR": "143526", "BHR": "143559",
        "BHS": "143539", "BIH": "143612", "BLR": "143565", "BLZ": "143555", "BMU": "143542", "BOL": "143556", "BRA": "143503", "BRB": "143541",
        "BRN": "143560", "BTN": "143577", "BWA": "143525", "CAN": "143455", "CHE": "143459", "CHL": "143483", "CHN": "143465", "CIV": "143527",
        "CMR": "143574", "COD": "143613", "COG": "143582", "COL": "143501", "CPV": "143580", "CRI": "143495", "CYM": "143544", "CYP": "143557",
        "CZE": "143489", "DEU": "143443", "DMA": "143545", "DNK": "143458", "DOM": "143508", "DZA": "143563", "ECU": "143509", "EGY": "143516",
        "ESP": "143454", "EST": "143518", "FIN": "143447", "FJI": "143583", "FRA": "143442", "FSM": "143591", "GAB": "143614", "GBR": "143444",
        "GEO": "143615", "GHA": "143573", "GMB": "143584", "GNB": "143585", "GRC": "143448", "GRD": "143546", "GTM": "143504", "GUY": "143553",
        "HKG": "143463", "HND": "143510", "HRV": "143494", "HUN": "143482", "IDN": "143476", "IND": "143467", "IRL": "143449", "IRQ": "143617",
        "ISL": "143558", "ISR": "143491", "ITA": "143450", "JAM": "143511", "JOR": "143528", "JPN": "143462", "KAZ": "143517", "KEN": "143529",
        "KGZ": "143586", "KHM": "143579", "KNA": "143548", "KOR": "143466", "KWT": "143493", "LAO": "143587", "LBN": "143497", "LBR": "143588",
        "LBY": "143567", "LCA": "143549", "LKA": "143486", "LTU": "143520", "LUX": "143451", "LVA": "143519", "MAC": "143515", "MAR": "143620",
        "MDA": "143523", "MDG": "143531", "MDV": "143488", "MEX": "143468", "MKD": "143530", "MLI": "143532", "MLT": "143521", "MMR": "143570",
        "MNE": "143619", "MNG": "143592", "MOZ": "143593", "MRT": "143590", "MSR": "143547", "MUS": "143533", "MWI": "143589", "MYS": "143473",
        "NAM": "143594", "NER": "143534", "NGA": "143561", "NIC": "143512", "NLD": "143452", "NOR": "143457", "NPL": "143484", "NRU": "143606",
        "NZL": "143461", "OMN": "143562", "PAK": "143477", "PAN": "143485", "PER": "143507", "PHL": "143474", "PLW": "143595", "PNG": "143597",
        "POL": "143478", "PRT": "143453", "PRY": "143513", "QAT": "143498", "ROU": "143487", "RUS": "143469", "RWA": "143621", "SAU": "143479",
        "SEN": "143535", "SGP": "143464", "SLB": "143601", "SLE": "143600", "SLV": "143506", "SRB": "143500", "STP": "143598", "SUR": "143554",
        "SVK": "143496", "SVN": "143499", "SWE": "143456", "SWZ": "143602", "SYC": "143599", "TCA": "143552", "TCD": "143581", "THA": "143475",
        "TJK": "143603", "TKM": "143604", "TON": "143608", "TTO": "143551", "TUN": "143536", "TUR": "143480", "TWN": "143470", "TZA": "143572",
        "UGA": "143537", "UKR": "143492", "URY": "143514", "USA": "143441", "UZB": "143566", "VCT": "143550", "VEN": "143502", "VGB": "143543",
        "VNM": "143471", "VUT": "143609", "XKS": "143624", "YEM": "143571", "ZAF": "143472", "ZMB": "143622", "ZWE": "143605",
    ]
}
