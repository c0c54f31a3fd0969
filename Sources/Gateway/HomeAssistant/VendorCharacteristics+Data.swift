// Characteristic types HAP does not define, as data: one line each, columns separated by one tab, `-` for
// an empty one:
//   type (full UUID, or an Apple short type), vendor, name (sentence case), Home Assistant platform, unit,
//   device class, state class, entity category, extras separated by spaces: `min= max= step=` (the range
//   when the accessory sends none), `options=<int>:<word>,…` (an enumeration's values), `through=<type>`
//   (a write-only characteristic of the same service that takes this one's writes).
//
// Sources (facts, not code): the vendor UUIDs, what each measures and its range are from aiohomekit
// `aiohomekit/model/characteristics/characteristic_types.py` (github.com/Jc2k/aiohomekit, Apache-2.0);
// the platform, unit, device and state class and category Home Assistant gives them are from its
// HomeKit Controller integration (`homeassistant/components/homekit_controller/sensor.py`, `number.py`,
// `select.py`, `switch.py`, `button.py`, github.com/home-assistant/core, Apache-2.0). Types Home Assistant
// leaves out (Ecobee's fan-speed mirror, status and alert; ConnectSense's voltage; Eve's motion duration)
// are named from aiohomekit's notes on them and kept `diagnostic` or `config`.

extension VendorCharacteristics {
    static let table = """
        E863F10A-079E-48FF-8F27-9C2605A29F52	Eve	Voltage	sensor	V	voltage	measurement	-
        E863F126-079E-48FF-8F27-9C2605A29F52	Eve	Current	sensor	A	current	measurement	-
        E863F10D-079E-48FF-8F27-9C2605A29F52	Eve	Power	sensor	W	power	measurement	-
        E863F10C-079E-48FF-8F27-9C2605A29F52	Eve	Energy	sensor	kWh	energy	total_increasing	-
        E863F10F-079E-48FF-8F27-9C2605A29F52	Eve	Air pressure	sensor	hPa	pressure	measurement	-
        E863F130-079E-48FF-8F27-9C2605A29F52	Eve	Elevation	number	-	-	-	config
        E863F12D-079E-48FF-8F27-9C2605A29F52	Eve	Motion duration	number	s	duration	-	config
        E863F120-079E-48FF-8F27-9C2605A29F52	Eve	Motion sensitivity	select	-	-	-	config	options=0:high,4:medium,7:low
        E863F10B-079E-48FF-8F27-9C2605A29F52	Eve	VOC	sensor	ppm	volatile_organic_compounds_parts	measurement	-
        E863F12E-079E-48FF-8F27-9C2605A29F52	Eve	Valve position	sensor	%	-	measurement	diagnostic
        4AAAF931-0DEC-11E5-B939-0800200C9A66	Koogeek	Power	sensor	W	power	measurement	-
        7BBBA96E-EB2D-11E5-A837-0800200C9A66	Koogeek	Power	sensor	W	power	measurement	-
        FC093458-18F0-4B1D-8360-BB68A3FCC9C5	VOCOlinc	Power	sensor	W	power	measurement	-
        69D52519-0A4E-4898-8335-4739F9116D0A	VOCOlinc	Spray quantity	number	-	-	-	config
        F84B3138-E44F-49B9-AA91-9E1736C247C0	VOCOlinc	Timer	number	-	-	-	config
        43CE176B-2933-4034-98A7-AD215BEEBF2F	VOCOlinc	Countdown	sensor	-	-	measurement	diagnostic
        A30DFE91-271A-42A5-88BA-00E3FF5488AD	VOCOlinc	Light timer	number	-	-	-	config
        146889FC-7C42-429B-93AB-E80F79759E90	VOCOlinc	Light effect mode	number	-	-	-	config
        9D4B479D-9EFB-4739-98F3-B33E6543BF7B	VOCOlinc	Light effect	switch	-	-	-	config
        2C42B339-6EC9-4ED5-8DBF-FFCCC721B144	VOCOlinc	Flashing mode	switch	-	-	-	config
        A3663C89-DC18-42EF-8297-910A4C0C9B61	VOCOlinc	Smoothing mode	switch	-	-	-	config
        6533B15C-AECB-455F-8896-20B125390F61	VOCOlinc	Breathing mode	switch	-	-	-	config
        00000004-0000-1000-8000-001D4B474349	ConnectSense	Current	sensor	A	current	measurement	-
        00000005-0000-1000-8000-001D4B474349	ConnectSense	State timer	sensor	-	-	-	diagnostic
        00000006-0000-1000-8000-001D4B474349	ConnectSense	Total current	sensor	A	current	measurement	diagnostic
        00000008-0000-1000-8000-001D4B474349	ConnectSense	Voltage	sensor	V	voltage	measurement	-
        00000009-0000-1000-8000-001D4B474349	ConnectSense	Current	sensor	A	current	measurement	-
        0000000A-0000-1000-8000-001D4B474349	ConnectSense	Power	sensor	W	power	measurement	-
        0000000B-0000-1000-8000-001D4B474349	ConnectSense	Power factor	sensor	%	power_factor	measurement	-
        0000000C-0000-1000-8000-001D4B474349	ConnectSense	Energy	sensor	kWh	energy	total_increasing	-
        0000000E-0000-1000-8000-001D4B474349	ConnectSense	Assigned name	sensor	-	-	-	diagnostic
        0000000F-0000-1000-8000-001D4B474349	ConnectSense	Device type	sensor	-	-	-	diagnostic
        B7DDB9A3-54BB-4572-91D2-F1F5B0510F8C	Ecobee	Current mode	select	-	-	-	-	options=0:home,1:sleep,2:away through=1B300BC2-CFFC-47FF-89F9-BD6CCF5F2853
        E4489BBC-5227-4569-93E5-B345E3E5508F	Ecobee	Home heat target	number	°C	temperature	-	config	min=7.2 max=26.1 step=0.1
        7D381BAA-20F9-40E5-9BE9-AEB92D4BECEF	Ecobee	Home cool target	number	°C	temperature	-	config	min=18.3 max=33.3 step=0.1
        05B97374-6DC0-439B-A0FA-CA33F612D425	Ecobee	Sleep heat target	number	°C	temperature	-	config	min=7.2 max=26.1 step=0.1
        A251F6E7-AC46-4190-9C5D-3D06277BDF9F	Ecobee	Sleep cool target	number	°C	temperature	-	config	min=18.3 max=33.3 step=0.1
        73AAB542-892A-4439-879A-D2A883724B69	Ecobee	Away heat target	number	°C	temperature	-	config	min=7.2 max=26.1 step=0.1
        5DA985F0-898A-4850-B987-B76C6C78D670	Ecobee	Away cool target	number	°C	temperature	-	config	min=18.3 max=33.3 step=0.1
        1B300BC2-CFFC-47FF-89F9-BD6CCF5F2853	Ecobee	Hold schedule	select	-	-	-	config	options=0:home,1:sleep,2:away
        1621F556-1367-443C-AF19-82AF018E99DE	Ecobee	Next scheduled change	sensor	-	-	-	diagnostic
        FA128DE6-9D7D-49A4-B6D8-4E4E234DEE38	Ecobee	Clear hold	button	-	-	-	config
        C35DA3C0-E004-40E3-B153-46655CDD9214	Ecobee	Fan speed	number	%	-	-	config	min=0 max=100 step=1
        48F62AEC-4171-4B4A-8F0E-1EEB6708B3FB	Ecobee	Fan speed	sensor	%	-	measurement	diagnostic
        1B1515F2-CC45-409F-991F-C480987F92C3	Ecobee	Alert	sensor	-	-	-	diagnostic
        4A6AE4F6-036C-495D-87CC-B3702B437741	Ecobee	Equipment running	sensor	-	enum	-	diagnostic	options=0:idle,1:heat,2:cool,3:fan,4:aux
        DB7BF261-7042-4194-8BD1-3AA22830AEDD	Ecobee	Status	sensor	-	enum	-	diagnostic	options=0:ok,1:service,2:alert,3:error
        41935E3E-B54D-42E9-B8B9-D33C6319F0AF	Ecobee	Auxiliary heat	binary_sensor	-	running	-	diagnostic
        BFE61C70-4A40-11E6-BDF4-0800200C9A66	Ecobee	Last motion	sensor	s	duration	measurement	diagnostic
        A8F798E0-4A40-11E6-BDF4-0800200C9A66	Ecobee	Last occupancy	sensor	s	duration	measurement	diagnostic
        EE56B186-B0D3-528E-8C79-C21FC9BCF437	Aqara	Volume	number	%	-	-	config	min=0 max=100 step=1
        B1C09E4C-E202-4827-B343-B0F32F727CFF	Aqara	Pairing mode	switch	-	-	-	config
        EE56B186-B0D3-488E-8C79-C21FC9BCF437	Aqara	Volume	number	%	-	-	config	min=0 max=100 step=1
        B1C09E4C-E202-4827-B863-B0F32F727CFF	Aqara	Pairing mode	switch	-	-	-	config
        B3BBFABC-D78C-5B8D-948C-5DAC1EE2CDE5	Netatmo	Noise	sensor	dB	sound_pressure	measurement	-
        F0000102-0218-2017-81BF-AF2B7C833922	HAA	Setup	button	-	-	-	config
        F0000101-0218-2017-81BF-AF2B7C833922	HAA	Update	button	-	-	-	config
        00000006-5E50-11EC-B400-0A80FF2603DE	Airversa	Sleep mode	switch	-	-	-	config
        702	Apple	Thread capabilities	sensor	-	-	-	diagnostic
        703	Apple	Thread status	sensor	-	-	-	diagnostic
        704	Apple	Thread control point	button	-	-	-	config
        """
}
