// The words people use for the catalog's types and values, as data: what the web page shows where the
// catalog's CamelCase names (`CurrentHeatingCoolingState`, `ContactNotDetected`) would read as code. Topics
// and payloads keep the catalog's names and slugs; these words are for people only.
//
// Columns, separated by one tab: `S` (a service) or `C` (a characteristic), the short type, its label,
// and for a characteristic the labels of its values (`value=label;…`), where the catalog's value names,
// split into words (`HumidifierOrDehumidifier` is "Humidifier or dehumidifier"), would not say what a
// person says; for a bool, 0 and 1 stand for false and true. A type without a row is its CamelCase name split into words (`LabelWords.words`).

extension HAPCatalog {
    static let labelTable = """
        S	3E	Accessory information
        S	40	Fan
        S	41	Garage door
        S	43	Light
        S	45	Lock
        S	49	Switch
        S	4A	Thermostat
        S	7E	Security system
        S	7F	Carbon monoxide
        S	80	Contact
        S	82	Humidity
        S	83	Leak
        S	84	Light level
        S	85	Motion
        S	86	Occupancy
        S	87	Smoke
        S	89	Button
        S	8A	Temperature
        S	8C	Blind
        S	8D	Air quality
        S	96	Battery
        S	97	Carbon dioxide
        S	A2	HomeKit protocol
        S	B7	Fan
        S	BC	Heater and cooler
        S	BD	Humidifier
        C	E	Door	0=Open;1=Closed;2=Opening;3=Closing;4=Stopped
        C	F	Heating or cooling	0=Idle;1=Heating;2=Cooling
        C	10	Humidity
        C	11	Temperature
        C	1D	Lock	0=Unlocked;1=Locked;2=Jammed;3=Unknown
        C	1E	Lock to	0=Unlocked;1=Locked
        C	22	Motion	0=No motion;1=Motion
        C	24	Obstruction	0=None;1=Obstructed
        C	25	On	0=Off;1=On
        C	26	In use	0=Not in use;1=In use
        C	29	Speed
        C	30	Serial number
        C	32	Door to	0=Open;1=Closed
        C	33	Mode	0=Off;1=Heat;2=Cool;3=Auto
        C	35	Target temperature
        C	36	Shows temperatures in	0=°C;1=°F
        C	52	Firmware
        C	53	Hardware
        C	68	Battery level
        C	69	Carbon monoxide	0=Normal;1=Too high
        C	6A	Contact	0=Closed;1=Open
        C	6B	Light level
        C	6D	Position
        C	70	Leak	0=No leak;1=Leak
        C	71	Occupancy	0=No one;1=Occupied
        C	72	Moving	0=Closing;1=Opening;2=Stopped
        C	76	Smoke	0=No smoke;1=Smoke
        C	77	Fault	0=None;1=Fault
        C	79	Battery	0=Normal;1=Low
        C	7A	Tampered	0=No;1=Tampered
        C	7C	Target position
        C	8F	Charging	0=Not charging;1=Charging;2=Not chargeable
        C	92	Carbon dioxide	0=Normal;1=Too high
        C	A6	Accessory flags
        C	AC	Filter	0=Good;1=Change it
        C	B0	Active	0=Off;1=On
        C	CE	Colour temperature
        """
}
