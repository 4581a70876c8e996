import HearthGeo
import HearthTrace

extension ServerReplay.Result {
  /// The replay as GeoJSON features: the places (with name and circle), each
  /// person's track in time order, the trips (with both ends named as in
  /// ``tripNames``: `startPlace`, `startNamedBy`, `endPlace`, `endNamedBy`,
  /// null when unnamed), and every geofence event (at
  /// its place's centre), sudden stop (where it stopped) and speed alert
  /// (at the person's fix where the fastest stretch ended), each with its
  /// outcome and person.
  ///
  /// Complexity: O(fixes log fixes + events).
  public func features(places: [NamedPlace], fixes: FixColumns) -> [GeoJSON.Feature] {
    var features = places.map {
      GeoJSON.place(
        id: String($0.geofence.id.rawValue), name: $0.name, centre: $0.geofence.center,
        radiusMeters: $0.geofence.radiusMeters,
        properties: [("circle", .number(Double($0.geofence.circle.rawValue)))])
    }
    var byPerson: [UserID: [Int]] = [:]
    for i in 0..<fixes.count { byPerson[fixes.user[i], default: []].append(i) }
    // Where each person was at each time: the first fix logged then.
    var position: [PersonTime: Coordinate] = [:]
    for (person, indices) in byPerson.sorted(by: { $0.key < $1.key }) {
      let own = fixes.selecting(indices.sorted { fixes.timeMilliseconds[$0] < fixes.timeMilliseconds[$1] })
      features.append(
        GeoJSON.track(
          own, properties: [("kind", .string("track")), ("person", .number(Double(person.rawValue)))]))
      for i in indices where position[PersonTime(person: person, time: fixes.timeMilliseconds[i])] == nil {
        position[PersonTime(person: person, time: fixes.timeMilliseconds[i])] = fixes[i].coordinate
      }
    }
    let centre = Dictionary(
      places.map { ($0.geofence.id, $0.geofence.center) }, uniquingKeysWith: { first, _ in first })
    for (k, output) in outputs.enumerated() {
      let names = k < tripNames.count ? tripNames[k] : []
      for (i, s) in output.trips.segments.enumerated() where s.isTrip {
        let ends = i < names.count ? names[i] : TripNaming.Ends()
        var f = GeoJSON.track(
          FixColumns(s.fixes),
          properties: [
            ("kind", .string("trip")), ("id", .number(Double(s.id))),
            ("person", .number(Double(s.person.rawValue))),
            ("startPlace", ends.from.map { .number(Double($0.rawValue)) } ?? .null),
            ("startNamedBy", ends.fromSource.map { .string($0.rawValue) } ?? .null),
            ("endPlace", ends.to.map { .number(Double($0.rawValue)) } ?? .null),
            ("endNamedBy", ends.toSource.map { .string($0.rawValue) } ?? .null),
          ])
        f.id = "trip-\(s.id)"
        features.append(f)
      }
      for e in output.geofenceEvents {
        guard let at = centre[e.place] else { continue }
        features.append(
          GeoJSON.event(
            kind: e.kind.rawValue, at: at, timeMilliseconds: e.eventMilliseconds,
            properties: [
              ("outcome", .string(e.outcome.rawValue)), ("place", .number(Double(e.place.rawValue))),
              ("person", .number(Double(e.person.rawValue))),
            ]))
      }
      for e in output.suddenStops {
        features.append(
          GeoJSON.event(
            kind: "suddenStop", at: e.coordinate, timeMilliseconds: e.stopMilliseconds,
            properties: [
              ("outcome", .string(e.outcome.rawValue)), ("person", .number(Double(e.person.rawValue))),
            ]))
      }
      for e in output.speedAlerts {
        guard let at = position[PersonTime(person: e.person, time: e.endMilliseconds)] else { continue }
        features.append(
          GeoJSON.event(
            kind: "speedAlert", at: at, timeMilliseconds: e.endMilliseconds,
            properties: [
              ("outcome", .string(e.outcome.rawValue)),
              ("agreedSpeedMetersPerSecond", .number(e.agreedSpeedMetersPerSecond)),
              ("person", .number(Double(e.person.rawValue))),
            ]))
      }
    }
    return features
  }
}

private struct PersonTime: Hashable {
  var person: UserID
  var time: Int64
}
